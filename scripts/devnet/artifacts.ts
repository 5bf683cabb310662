import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Hex } from "viem";

const root = join(import.meta.dir, "..", "..");

/** Creation and runtime bytecode of a contract compiled by `forge build` into `out/`. */
export function forgeArtifact(file: string, name: string): { bytecode: Hex; deployedBytecode: Hex } {
  const path = join(root, "out", file, `${name}.json`);
  const json = JSON.parse(readFileSync(path, "utf8"));
  return { bytecode: json.bytecode.object, deployedBytecode: json.deployedBytecode.object };
}

/** EntryPoint v0.7 exactly as published, so that it lands at its canonical address. */
export function entryPointArtifact(): { bytecode: Hex } {
  const json = JSON.parse(
    readFileSync(join(root, "node_modules/@account-abstraction/contracts/artifacts/EntryPoint.json"), "utf8"),
  );
  return { bytecode: json.bytecode };
}

/** Creation bytecode of one of the Alto bundler's own contracts, as shipped in its npm package. */
export function altoArtifact(path: string): Hex {
  const json = JSON.parse(readFileSync(join(root, "node_modules/@pimlico/alto/esm/contracts", path), "utf8"));
  return json.bytecode.object;
}
