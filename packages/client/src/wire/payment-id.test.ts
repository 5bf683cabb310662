import { describe, expect, test } from "bun:test";
import { concatHex, keccak256, numberToHex, padHex, toHex } from "viem";
import { paymentIdOf } from "./payment-id.js";

const payer = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const relayer = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const token = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512";
const nonce = keccak256(toHex("a nonce"));

describe("paymentIdOf", () => {
  test("is keccak256 of the four ABI-encoded words, as the docs give it", () => {
    const words = concatHex([
      numberToHex(56, { size: 32 }),
      padHex(relayer.toLowerCase() as `0x${string}`, { size: 32 }),
      padHex(payer.toLowerCase() as `0x${string}`, { size: 32 }),
      nonce,
    ]);
    expect(paymentIdOf({ chainId: 56, contract: relayer, payer, nonce })).toBe(keccak256(words));
  });

  test("a bytes32 nonce and the same uint256 give one id; case of addresses does not matter", () => {
    const asHex = paymentIdOf({ chainId: 8453, contract: token, payer, nonce });
    const asNumber = paymentIdOf({
      chainId: 8453n,
      contract: token.toLowerCase() as `0x${string}`,
      payer,
      nonce: BigInt(nonce),
    });
    expect(asNumber).toBe(asHex);
  });

  test("the chain, the nonce space, the payer and the nonce each change the id", () => {
    const base = { chainId: 56, contract: relayer, payer, nonce } as const;
    const id = paymentIdOf(base);
    expect(paymentIdOf({ ...base, chainId: 97 })).not.toBe(id);
    expect(paymentIdOf({ ...base, contract: token })).not.toBe(id);
    expect(paymentIdOf({ ...base, payer: relayer })).not.toBe(id);
    expect(paymentIdOf({ ...base, nonce: 1n })).not.toBe(id);
  });
});
