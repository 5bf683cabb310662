import { readFile } from "node:fs/promises";
import descriptorJson from "../../packages/client/circuit/circuit.json";
import wasmPath from "../../packages/client/circuit/unshield.wasm" with { type: "file" };
import zkeyPath from "../../packages/client/circuit/unshield.zkey" with { type: "file" };
import verificationKeyFile from "../../packages/client/circuit/verification_key.json" with { type: "file" };
import type { CircuitDescriptor } from "./artifacts";

/**
 * The committed artifacts as files: imported `with { type: "file" }` so that `bun build --compile` embeds them
 * and the single binary serves them as the repository does (a path read at run time would not exist there).
 */
const verificationKeyPath = verificationKeyFile as unknown as string;

/** Where the artifacts are served: the setup's id is in the path, so each URL's content never changes. */
export const CIRCUIT_PATH = "/incognito/circuit";

export type CircuitFiles = {
  descriptor: CircuitDescriptor;
  /** GET /incognito/circuit: the public signals and the artifacts' URLs and hashes. */
  summary(): {
    id: string;
    treeDepth: number;
    publicSignals: string[];
    wasm: string;
    zkey: string;
    verificationKey: string;
    sha256: { wasm: string; zkey: string; verificationKey: string };
  };
  /** The file of this setup named `file`, with its sha256; undefined for any other name or id. */
  file(id: string, file: string): { path: string; sha256: string; contentType: string } | undefined;
  verificationKey(): Promise<unknown>;
};

/** The committed artifacts (packages/client/circuit), described by their circuit.json. */
export function createCircuitFiles(descriptor: CircuitDescriptor = descriptorJson): CircuitFiles {
  const url = (file: string) => `${CIRCUIT_PATH}/${descriptor.id}/${file}`;
  const files = new Map(
    (
      [
        [descriptor.wasm, wasmPath, "application/wasm"],
        [descriptor.zkey, zkeyPath, "application/octet-stream"],
        [descriptor.verificationKey, verificationKeyPath, "application/json"],
      ] as const
    ).map(([entry, path, contentType]) => [entry.file, { path, sha256: entry.sha256, contentType }]),
  );
  let key: Promise<unknown> | undefined;
  return {
    descriptor,
    summary: () => ({
      id: descriptor.id,
      treeDepth: descriptor.treeDepth,
      publicSignals: [...descriptor.publicSignals],
      wasm: url(descriptor.wasm.file),
      zkey: url(descriptor.zkey.file),
      verificationKey: url(descriptor.verificationKey.file),
      sha256: {
        wasm: descriptor.wasm.sha256,
        zkey: descriptor.zkey.sha256,
        verificationKey: descriptor.verificationKey.sha256,
      },
    }),
    file: (id, file) => (id === descriptor.id ? files.get(file) : undefined),
    verificationKey() {
      key ??= readFile(verificationKeyPath, "utf8").then(JSON.parse);
      return key;
    },
  };
}
