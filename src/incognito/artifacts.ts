import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { PUBLIC_SIGNALS, TREE_DEPTH } from "@relay402/client/wire/incognito/protocol";

export const REPO_ROOT = resolve(import.meta.dir, "..", "..");
// The one copy of the setup output: the client package ships it for proving, the service serves and verifies with it.
const dir = join(REPO_ROOT, "packages", "client", "circuit");

/**
 * The committed output of scripts/incognito/setup.ts. A service serves wasm, zkey and verification key as they
 * are; circuit.json names the setup (`id`, changes with every setup) and the files' hashes, for caching.
 */
export const CIRCUIT_ARTIFACTS = {
  source: join(REPO_ROOT, "circuits", "unshield.circom"),
  wasm: join(dir, "unshield.wasm"),
  zkey: join(dir, "unshield.zkey"),
  verificationKey: join(dir, "verification_key.json"),
  descriptor: join(dir, "circuit.json"),
  verifier: join(REPO_ROOT, "contracts", "UnshieldVerifier.sol"),
} as const;

export type CircuitFile = { file: string; bytes: number; sha256: string };
export type CircuitDescriptor = {
  id: string;
  /** sha256 of circuits/unshield.circom when the setup ran: a changed circuit needs a new setup. */
  sourceSha256: string;
  treeDepth: number;
  publicSignals: string[];
  wasm: CircuitFile;
  zkey: CircuitFile;
  verificationKey: CircuitFile;
};

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

function describe(path: string): CircuitFile {
  const data = readFileSync(path);
  return { file: path.slice(dir.length + 1), bytes: data.length, sha256: sha256(data) };
}

/** Describes the artifacts on disk; the id is derived from the proving key, so a new setup gets a new id. */
export function circuitDescriptor(): CircuitDescriptor {
  const zkey = describe(CIRCUIT_ARTIFACTS.zkey);
  return {
    id: `unshield-${zkey.sha256.slice(0, 16)}`,
    sourceSha256: sha256(readFileSync(CIRCUIT_ARTIFACTS.source)),
    treeDepth: TREE_DEPTH,
    publicSignals: [...PUBLIC_SIGNALS],
    wasm: describe(CIRCUIT_ARTIFACTS.wasm),
    zkey,
    verificationKey: describe(CIRCUIT_ARTIFACTS.verificationKey),
  };
}

/** The committed circuit.json. */
export function loadCircuitDescriptor(): CircuitDescriptor {
  return JSON.parse(readFileSync(CIRCUIT_ARTIFACTS.descriptor, "utf8"));
}
