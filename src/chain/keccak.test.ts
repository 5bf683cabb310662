import { expect, test } from "bun:test";
import { type Hex, keccak256, toHex } from "viem";
import { keccak256Hex, keccakIsWebAssembly, keccakReady } from "./keccak";

test("answers viem's keccak256 for every length around the rate's block boundaries", async () => {
  await keccakReady;
  expect(keccakIsWebAssembly()).toBe(true);
  for (const length of [0, 1, 31, 32, 33, 66, 135, 136, 137, 224, 271, 272, 273, 1000]) {
    const data = toHex(crypto.getRandomValues(new Uint8Array(length)));
    expect(keccak256Hex(data)).toBe(keccak256(data));
  }
});

test("an upper-case hex input hashes the same bytes", async () => {
  await keccakReady;
  const data = `0x${"AbCdEf".repeat(20)}` as Hex;
  expect(keccak256Hex(data)).toBe(keccak256(data));
});
