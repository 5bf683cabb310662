import { describe, expect, test } from "bun:test";
import { encodeErrorResult, parseAbi, toFunctionSelector } from "viem";
import { describeRevert } from "./simulate-deployments";

const builtins = parseAbi(["error Error(string)", "error Panic(uint256)"]);

describe("describeRevert", () => {
  test("names the factory's errors, Solidity's Error and Panic, and the selector of anything else", () => {
    expect(describeRevert(toFunctionSelector("InvalidOwner()"))).toBe("InvalidOwner()");
    expect(describeRevert(encodeErrorResult({ abi: builtins, errorName: "Error", args: ["no"] }))).toBe("Error: no");
    expect(describeRevert(encodeErrorResult({ abi: builtins, errorName: "Panic", args: [17n] }))).toBe("Panic(17)");
    expect(describeRevert("0xdeadbeef00")).toBe("unknown error 0xdeadbeef");
  });
});
