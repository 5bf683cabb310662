import { describe, expect, test } from "bun:test";
import { privacyPoolAbi } from "@relay402/client/wire/incognito/pool-abi";
import { relayerSwapAbi } from "@relay402/client/wire/swap/abis";
import { encodeErrorResult, parseAbi } from "viem";
import { revertDataOf } from "../chain/errors";
import { decodeRevert, revertRefusal, SimulatedRevertError } from "./simulate";

describe("simulated reverts", () => {
  test("the contracts' custom errors, revert strings and panics are named; unknown data by its selector", () => {
    expect(decodeRevert(encodeErrorResult({ abi: privacyPoolAbi, errorName: "LeafAlreadyExists" }))).toEqual({
      errorName: "LeafAlreadyExists",
      reason: "LeafAlreadyExists()",
    });
    const output = encodeErrorResult({ abi: relayerSwapAbi, errorName: "InsufficientOutput", args: [5n, 7n] });
    expect(decodeRevert(output)).toEqual({ errorName: "InsufficientOutput", reason: "InsufficientOutput(5, 7)" });
    const text = encodeErrorResult({
      abi: parseAbi(["error Error(string)"]),
      errorName: "Error",
      args: ["ERC20: transfer amount exceeds balance"],
    });
    expect(decodeRevert(text)).toEqual({ errorName: "Error", reason: "ERC20: transfer amount exceeds balance" });
    const panic = encodeErrorResult({ abi: parseAbi(["error Panic(uint256)"]), errorName: "Panic", args: [17n] });
    expect(decodeRevert(panic)).toEqual({ errorName: "Panic", reason: "Panic(17)" });
    expect(decodeRevert("0xdeadbeef0000")).toEqual({ errorName: undefined, reason: "0xdeadbeef" });
    expect(decodeRevert("0x")).toEqual({ errorName: undefined, reason: "reverted without a reason" });
  });

  test("the revert data is found on a nested cause, as viem keeps the node's error.data", () => {
    const error = new Error("call failed", { cause: { cause: { data: { data: "0x258a195a" } } } });
    expect(revertDataOf(error)).toBe("0x258a195a");
    expect(revertDataOf(new Error("call failed", { cause: { data: "0x" } }))).toBe("0x");
    expect(revertDataOf(new Error("fetch failed"))).toBeUndefined();
  });

  test("the default refusal is a 400 userop_error naming the field, the reason and the error", () => {
    const refusal = revertRefusal(
      new SimulatedRevertError("0x258a195a", "LeafAlreadyExists", "LeafAlreadyExists()"),
      "x",
    );
    expect(refusal.status).toBe(400);
    expect(refusal.code).toBe("userop_error");
    expect(refusal.message).toBe("the UserOp would revert: LeafAlreadyExists()");
    expect(refusal.details).toEqual({ field: "x", reason: "LeafAlreadyExists()", revert: "LeafAlreadyExists" });
    const bare = revertRefusal(new SimulatedRevertError(undefined, undefined, "execution reverted"), "userOp", {
      userOpHash: "0x01",
    });
    expect(bare.details).toEqual({ field: "userOp", reason: "execution reverted", userOpHash: "0x01" });
  });
});
