import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Address, getAddress, type Hex, keccak256, slice } from "viem";
import { CANONICAL } from "../../chain/canonical";
import { REPO_ROOT } from "../../incognito/artifacts";
import { embeddedArtifact } from "./embedded-artifacts";

// The bytecode relay402's deploy sends. relay402's own contracts come from `forge build` (out/): their CREATE2
// addresses depend on every byte, so a checkout at the same commit deploys to the same addresses. The canonical
// contracts relay402 may deploy come from their published artifacts, never recompiled.

export class MissingArtifactError extends Error {
  override name = "MissingArtifactError";
}

type ForgeArtifact = {
  bytecode: { object: Hex; linkReferences: Record<string, Record<string, { start: number; length: number }[]>> };
};

function forgeArtifact(file: string, name: string): ForgeArtifact {
  const path = embeddedArtifact(`out/${file}/${name}.json`) ?? join(REPO_ROOT, "out", file, `${name}.json`);
  if (!existsSync(path)) {
    throw new MissingArtifactError(
      `${name}'s build output is missing (${path}): deploy runs from a checkout of the release, after ` +
        "`bun run build:contracts`",
    );
  }
  return JSON.parse(readFileSync(path, "utf8"));
}

/** Creation code of one of relay402's contracts (no library links). */
export function creationCode(file: string, name: string): Hex {
  const { bytecode } = forgeArtifact(file, name);
  if (Object.keys(bytecode.linkReferences).length > 0)
    throw new Error(`${name} links libraries: use linkedCreationCode`);
  return bytecode.object;
}

/** Creation code with its libraries linked to the given addresses (forge leaves placeholders for them). */
export function linkedCreationCode(file: string, name: string, libraries: Record<string, Address>): Hex {
  const { bytecode } = forgeArtifact(file, name);
  let code = bytecode.object.slice(2);
  for (const places of Object.values(bytecode.linkReferences)) {
    for (const [library, ranges] of Object.entries(places)) {
      const address = libraries[library];
      if (!address) throw new Error(`${name} links an unknown library ${library}`);
      for (const { start, length } of ranges) {
        code = code.slice(0, start * 2) + address.slice(2).toLowerCase() + code.slice((start + length) * 2);
      }
    }
  }
  if (code.includes("__$")) throw new Error(`${name}'s bytecode still has unlinked libraries`);
  return `0x${code}`;
}

/** A CREATE2 deployment as the deterministic deployer takes it: calldata = salt ‖ init code. */
export type Create2Payload = { salt: Hex; initCode: Hex };

/**
 * A contract x402's clients sign for, exactly as x402 builds it: its init code file (committed, embedded in the
 * binary), the keccak256 that file must have, and x402's salt. Any other build would land elsewhere.
 */
const X402_BUILDS = {
  /** x402's published init code (creation code with its metadata, then abi.encode(Permit2)), its vanity salt. */
  exact: {
    file: "artifacts/canonical/x402-exact-permit2-proxy.initcode.hex",
    hash: "0xe774d1d5a07218946ab54efe010b300481478b86861bb17d69c98a57f68a604c",
    salt: "0x0000000000000000000000000000000000000000000000003000000007263b0e",
  },
  /** Built from x402's sources (artifacts/x402/upto-proxy/README.md); UPTO_SALT of x402's Deploy.s.sol. */
  upto: {
    file: "artifacts/canonical/x402-upto-permit2-proxy.initcode.hex",
    hash: "0x74f7a29cbc3c55f87cdef7f7c551643189e8bb62eed9de67753aebc402b83797",
    salt: "0x000000000000000000000000000000000000000000000000b000000001db633d",
  },
} as const satisfies Record<string, { file: string; hash: Hex; salt: Hex }>;

function x402Payload(scheme: keyof typeof X402_BUILDS): Create2Payload {
  const build = X402_BUILDS[scheme];
  const file = embeddedArtifact(build.file) ?? join(REPO_ROOT, build.file);
  const initCode = readFileSync(file, "utf8").trim() as Hex;
  if (keccak256(initCode) !== build.hash) throw new Error(`x402's ${scheme} proxy init code does not hash as built`);
  return { salt: build.salt, initCode };
}

/** x402's exact Permit2 proxy exactly as published. */
export const x402ProxyPayload = () => x402Payload("exact");

/** x402's upto Permit2 proxy exactly as x402's build gives it. */
export const x402UptoProxyPayload = () => x402Payload("upto");

/**
 * The Poseidon libraries as poseidon-solidity deploys them (its `data` is salt ‖ init code for the same deployer).
 * Loaded only when incognito is deployed: the package is a build-time dependency, absent from a service install.
 */
export async function poseidonPayloads(): Promise<{ name: "poseidonT3" | "poseidonT4"; payload: Create2Payload }[]> {
  const { PoseidonT3, PoseidonT4 } = await import("poseidon-solidity");
  return [
    { name: "poseidonT3" as const, library: PoseidonT3 },
    { name: "poseidonT4" as const, library: PoseidonT4 },
  ].map(({ name, library }) => {
    if (getAddress(library.address) !== CANONICAL[name].address) {
      throw new Error(`poseidon-solidity's ${name} address is not the canonical one`);
    }
    const data = library.data as Hex;
    return { name, payload: { salt: slice(data, 0, 32), initCode: slice(data, 32) } };
  });
}
