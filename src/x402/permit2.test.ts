import { expect, test } from "bun:test";
import { PERMIT2_ADDRESS, x402ExactPermit2ProxyAddress, permit2WitnessTypes as x402Types } from "@x402/evm";
import { nonceBit, nonceKey, nonceWord, PERMIT2, permit2WitnessTypes, X402_EXACT_PERMIT2_PROXY } from "./permit2";

test("the addresses and the signed type are the ones @x402/evm 2.27 signs for", () => {
  expect(PERMIT2).toBe(PERMIT2_ADDRESS);
  expect(X402_EXACT_PERMIT2_PROXY).toBe(x402ExactPermit2ProxyAddress);
  expect(permit2WitnessTypes).toEqual(x402Types);
});

test("an unordered nonce is a bit of a word; the record keeps it as 32-byte hex", () => {
  expect(nonceWord(0x1ffn)).toBe(1n);
  expect(nonceBit(0x1ffn)).toBe(1n << 255n);
  expect(nonceBit(0x100n)).toBe(1n);
  expect(nonceKey(255n)).toBe(`0x${"0".repeat(62)}ff`);
});
