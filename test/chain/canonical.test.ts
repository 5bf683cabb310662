// The canonical contracts' expected code (src/chain/canonical.ts) held against the published artifacts and what
// the devnet holds: the devnet places EntryPoint, Permit2 and Multicall3 from those artifacts
// (scripts/devnet/canonical.ts) and relay402's deploy puts x402's proxy and the Poseidon libraries there.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Hex, keccak256, parseTransaction, slice } from "viem";
import { permit2RuntimeCode } from "../../scripts/devnet/canonical";
import { CANONICAL, canonicalCodeHash, canonicalCodeState } from "../../src/chain/canonical";
import { chainOf, NETWORK_NAMES } from "../support/chain";

const root = join(import.meta.dir, "..", "..");

describe("canonical contracts", () => {
  test("Multicall3's code hash is that of the runtime its pre-signed deployment creates", () => {
    const signed = readFileSync(join(root, "artifacts/canonical/multicall3.signed-tx.hex"), "utf8").trim() as Hex;
    const { data } = parseTransaction(signed);
    // The 32-byte creation prefix copies and returns the rest as the runtime code.
    expect(keccak256(slice(data as Hex, 32))).toBe(CANONICAL.multicall3.codeHash);
  });

  test("Permit2 matches on every chain with that chain's immutables, and not with one byte of its code changed", () => {
    for (const chainId of [1, 56, 97, 8453, 84532]) {
      expect(canonicalCodeState(CANONICAL.permit2, permit2RuntimeCode(chainId))).toBe("present");
    }
    expect(permit2RuntimeCode(56)).not.toBe(permit2RuntimeCode(8453));
    const code = permit2RuntimeCode(56);
    const changed = `${code.slice(0, 100)}${code[100] === "0" ? "1" : "0"}${code.slice(101)}` as Hex;
    expect(canonicalCodeState(CANONICAL.permit2, changed)).toBe("other-code");
    expect(canonicalCodeState(CANONICAL.permit2, "0x")).toBe("missing");
    expect(canonicalCodeState(CANONICAL.permit2, undefined)).toBe("missing");
  });

  test("a contract without immutables is hashed as it is", () => {
    expect(canonicalCodeHash(CANONICAL.multicall3, "0x6000")).toBe(keccak256("0x6000"));
  });

  for (const network of NETWORK_NAMES) {
    test(`${network}: every canonical address of the devnet holds the expected code`, async () => {
      const c = chainOf(network);
      for (const contract of Object.values(CANONICAL)) {
        const code = await c.public.getCode({ address: contract.address });
        expect({ name: contract.name, state: canonicalCodeState(contract, code) }).toEqual({
          name: contract.name,
          state: "present",
        });
      }
    });
  }
});
