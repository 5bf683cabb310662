import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { permit2RuntimeCode, VENDORED_PERMIT2 } from "../../scripts/devnet/canonical";
import { VENDORED_UNISWAP } from "../../scripts/devnet/dex-plan";

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

test(`the vendored Permit2 etcher is ${VENDORED_PERMIT2.package}'s own file`, () => {
  expect(readdirSync(VENDORED_PERMIT2.dir).sort()).toEqual(Object.keys(VENDORED_PERMIT2.files).sort());
  for (const [file, { sha256 }] of Object.entries(VENDORED_PERMIT2.files)) {
    const bytes = readFileSync(join(VENDORED_PERMIT2.dir, file));
    expect([file, createHash("sha256").update(bytes).digest("hex")]).toEqual([file, sha256]);
  }
  // The one constant taken from it: Permit2's runtime code, with the selectors of DOMAIN_SEPARATOR() and
  // permitTransferFrom(...) in its dispatcher (the devnet tests then use it as Permit2).
  const code = permit2RuntimeCode(56);
  expect(code).toMatch(/^0x[0-9a-f]{8000,}$/);
  expect(code).toContain("3644e515");
  expect(code).toContain("30f28b7a");
});
