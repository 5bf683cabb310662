import { describe, expect, test } from "bun:test";
import { encodePacked } from "viem";
import { encodePath } from "./path.js";

const A = "0x1111111111111111111111111111111111111111";
const B = "0x2222222222222222222222222222222222222222";
const C = "0x3333333333333333333333333333333333333333";

describe("encodePath", () => {
  test("V2: the token addresses packed", () => {
    expect(
      encodePath("v2", [
        { tokenIn: A, tokenOut: B },
        { tokenIn: B, tokenOut: C },
      ]),
    ).toBe(encodePacked(["address", "address", "address"], [A, B, C]).toLowerCase() as `0x${string}`);
  });

  test("V3: token, 3-byte fee, token, as the routers decode it", () => {
    const path = encodePath("v3", [
      { tokenIn: A, tokenOut: B, fee: 500 },
      { tokenIn: B, tokenOut: C, fee: 3000 },
    ]);
    expect(path).toBe(
      encodePacked(
        ["address", "uint24", "address", "uint24", "address"],
        [A, 500, B, 3000, C],
      ).toLowerCase() as `0x${string}`,
    );
    expect((path.length - 2) / 2).toBe(20 + 23 * 2);
  });

  test("refuses hops that do not chain, a V3 hop without a fee tier and an empty route", () => {
    expect(() =>
      encodePath("v2", [
        { tokenIn: A, tokenOut: B },
        { tokenIn: C, tokenOut: A },
      ]),
    ).toThrow(/chain/);
    expect(() => encodePath("v3", [{ tokenIn: A, tokenOut: B }])).toThrow(/fee/);
    expect(() => encodePath("v3", [{ tokenIn: A, tokenOut: B, fee: 2 ** 24 }])).toThrow(/fee/);
    expect(() => encodePath("v2", [])).toThrow(/one hop/);
  });
});
