import { describe, expect, test } from "bun:test";
import { relayerSwapAbi } from "@relay402/client/wire/swap/abis";
import { encodeErrorResult, parseAbi } from "viem";
import { swapRevertCause, swapRevertCount } from "./revert-cause";

const errorString = (message: string) =>
  encodeErrorResult({ abi: parseAbi(["error Error(string)"]), errorName: "Error", args: [message] });
const tokenErrors = parseAbi([
  "error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)",
  "error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)",
]);
const someone = "0x00000000000000000000000000000000000000aa";

describe("swapRevertCause", () => {
  test("a price below the minimum is the market's: the relayer's InsufficientOutput and the routers' checks", () => {
    const insufficient = encodeErrorResult({
      abi: relayerSwapAbi,
      errorName: "InsufficientOutput",
      args: [90n, 100n],
    });
    expect(swapRevertCause(insufficient)).toBe("market");
    expect(swapRevertCause(errorString("UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT"))).toBe("market");
    expect(swapRevertCause(errorString("PancakeRouter: INSUFFICIENT_OUTPUT_AMOUNT"))).toBe("market");
    expect(swapRevertCause(errorString("Too little received"))).toBe("market");
  });

  test("the payer's balance, allowance and own code are the payer's", () => {
    expect(
      swapRevertCause(
        encodeErrorResult({ abi: tokenErrors, errorName: "ERC20InsufficientBalance", args: [someone, 1n, 2n] }),
      ),
    ).toBe("payer");
    expect(
      swapRevertCause(
        encodeErrorResult({ abi: tokenErrors, errorName: "ERC20InsufficientAllowance", args: [someone, 1n, 2n] }),
      ),
    ).toBe("payer");
    expect(swapRevertCause(errorString("ERC20: transfer amount exceeds balance"))).toBe("payer");
    expect(swapRevertCause(encodeErrorResult({ abi: relayerSwapAbi, errorName: "InvalidSwap" }))).toBe("payer");
    // A contract payer's own error, which the relayer's ABI does not know.
    expect(swapRevertCause("0xdeadbeef")).toBe("payer");
  });

  test("a revert whose data could not be read is unread, and counts only against swaps", () => {
    expect(swapRevertCause(undefined)).toBe("unread");
    expect(swapRevertCause("0x")).toBe("unread");
    const kinds = { allFlows: "payer", swapsOnly: "swap_payer" } as const;
    expect(swapRevertCount("unread", kinds)).toEqual({ kind: "swap_payer", reason: "swap reverted: cause unread" });
    expect(swapRevertCount("market", kinds)).toEqual({ kind: "swap_payer", reason: "swap reverted: price moved" });
    expect(swapRevertCount("payer", kinds)).toEqual({ kind: "payer", reason: "swap reverted" });
  });
});
