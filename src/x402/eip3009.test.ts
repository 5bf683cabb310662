import { expect, test } from "bun:test";
import { type Address, hashTypedData, maxUint256, toHex } from "viem";
import { transferWithAuthorizationDigest, transferWithAuthorizationTypes } from "./eip3009";

const random = (bytes: number) => toHex(crypto.getRandomValues(new Uint8Array(bytes)));
const randomUint = () => BigInt(random(32)) >> BigInt(Math.floor(Math.random() * 256));

test("the TransferWithAuthorization digest is viem's hashTypedData, for any domain and message", () => {
  const domains = [
    { name: "USD Coin", version: "2" },
    { name: "", version: "" },
    { name: "Tëst Tøken ☃", version: "v1.0-rc" },
  ];
  for (let i = 0; i < 60; i++) {
    const domain = domains[i % domains.length] as { name: string; version: string };
    const chainId = [56, 8453, 1][i % 3] as number;
    const token = random(20) as Address;
    const message = {
      from: random(20) as Address,
      to: random(20) as Address,
      value: i === 0 ? maxUint256 : randomUint(),
      validAfter: i === 1 ? 0n : randomUint(),
      validBefore: randomUint(),
      nonce: random(32),
    };
    const expected = hashTypedData({
      domain: { ...domain, chainId, verifyingContract: token },
      types: transferWithAuthorizationTypes,
      primaryType: "TransferWithAuthorization",
      message,
    });
    expect(transferWithAuthorizationDigest(domain, chainId, token, message)).toBe(expected);
    // Checksummed or upper-case hex gives the same digest (the separator cache is keyed case-insensitively).
    expect(
      transferWithAuthorizationDigest(domain, chainId, token.toUpperCase().replace("0X", "0x") as Address, {
        ...message,
        nonce: message.nonce.toUpperCase().replace("0X", "0x") as `0x${string}`,
      }),
    ).toBe(expected);
  }
});

test("a different domain, chain or token gives a different digest (no separator is shared across them)", () => {
  const token = random(20) as Address;
  const message = { from: token, to: token, value: 1n, validAfter: 0n, validBefore: 2n, nonce: random(32) };
  const digests = new Set([
    transferWithAuthorizationDigest({ name: "USD Coin", version: "2" }, 8453, token, message),
    transferWithAuthorizationDigest({ name: "USD Coin", version: "1" }, 8453, token, message),
    transferWithAuthorizationDigest({ name: "USD Coin2", version: "" }, 8453, token, message),
    transferWithAuthorizationDigest({ name: "USD Coin", version: "2" }, 56, token, message),
    transferWithAuthorizationDigest({ name: "USD Coin", version: "2" }, 8453, random(20) as Address, message),
  ]);
  expect(digests.size).toBe(5);
});
