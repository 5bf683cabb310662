import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { VENDORED_UNISWAP } from "../../scripts/devnet/dex";

// The committed Uniswap artifacts are the npm package's files, byte for byte: each one's sha256 is the one
// recorded beside its package name, version and path in the package (scripts/devnet/dex.ts), and nothing else is
// in the folder. A file edited, swapped or added here fails this test.
test(`the vendored artifacts are ${VENDORED_UNISWAP.package}'s own files`, () => {
  const committed = readdirSync(VENDORED_UNISWAP.dir).sort();
  expect(committed).toEqual(Object.keys(VENDORED_UNISWAP.files).sort());
  for (const [file, { sha256 }] of Object.entries(VENDORED_UNISWAP.files)) {
    const bytes = readFileSync(join(VENDORED_UNISWAP.dir, file));
    expect([file, createHash("sha256").update(bytes).digest("hex")]).toEqual([file, sha256]);
    const json = JSON.parse(bytes.toString("utf8")) as { contractName: string; bytecode: string; abi: unknown[] };
    expect(`${json.contractName}.json`).toBe(file);
    expect(json.bytecode).toMatch(/^0x[0-9a-f]+$/);
  }
});
