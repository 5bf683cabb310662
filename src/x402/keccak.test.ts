import { describe, expect, test } from "bun:test";
import { bytesToHex, keccak256 } from "viem";
import { keccak256Hex } from "./keccak";

describe("keccak256Hex", () => {
  test("agrees with viem's keccak256 on every length from 0 to 3 blocks and a few beyond", () => {
    // Lengths around the 136-byte rate (135, 136, 137, 271, 272, 273) decide the padding's block.
    const lengths = [...Array.from({ length: 410 }, (_, i) => i), 1000, 6000];
    for (const length of lengths) {
      const bytes = crypto.getRandomValues(new Uint8Array(length));
      const hex = bytesToHex(bytes);
      expect(keccak256Hex(hex)).toBe(keccak256(hex));
      expect(keccak256Hex(hex.toUpperCase().replace("0X", "0x") as `0x${string}`)).toBe(keccak256(hex));
    }
  });

  test("known answers: the empty string and 'abc'", () => {
    expect(keccak256Hex("0x")).toBe("0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
    expect(keccak256Hex("0x616263")).toBe("0x4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45");
  });

  test("refuses what is not even-length hex", () => {
    expect(() => keccak256Hex("0x123" as `0x${string}`)).toThrow();
    expect(() => keccak256Hex("0xzz" as `0x${string}`)).toThrow();
  });
});
