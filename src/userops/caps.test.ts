import { describe, expect, test } from "bun:test";
import type { UserOp } from "@relay402/client/wire/user-operation";
import { parseGwei } from "viem";
import { presetOf } from "../networks";
import { assertWithinCaps, UserOpCapError, userOpCapsFor } from "./caps";

const measured: UserOp = {
  sender: "0x00000000000000000000000000000000000000aa",
  nonce: 0n,
  callData: "0x",
  callGasLimit: 631_557n,
  verificationGasLimit: 59_739n,
  preVerificationGas: 68_950n,
  maxFeePerGas: 1_225_001_380n,
  maxPriorityFeePerGas: 1_000_000_000n,
  paymaster: "0x00000000000000000000000000000000000000bb",
  paymasterVerificationGasLimit: 25_462n,
  paymasterPostOpGasLimit: 1n,
  paymasterData: "0x",
  signature: "0x",
};

const refusal = (op: UserOp, network: "bsc" | "base" = "bsc") => {
  try {
    assertWithinCaps(op, userOpCapsFor(presetOf(network).userOpCaps));
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(UserOpCapError);
    return (error as UserOpCapError).field;
  }
};

describe("assertWithinCaps", () => {
  test("a 20-transfer payment as the devnet's Alto proposes it passes the defaults of both networks", () => {
    expect(refusal(measured, "bsc")).toBeNull();
    expect(refusal(measured, "base")).toBeNull();
  });

  test("each inflated figure is refused by name", () => {
    expect(refusal({ ...measured, maxFeePerGas: parseGwei("11") })).toBe("maxFeePerGas");
    expect(refusal({ ...measured, maxPriorityFeePerGas: parseGwei("11") })).toBe("maxPriorityFeePerGas");
    expect(refusal({ ...measured, callGasLimit: 2_000_001n })).toBe("callGasLimit");
    expect(refusal({ ...measured, verificationGasLimit: 300_001n })).toBe("verificationGasLimit");
    expect(refusal({ ...measured, paymasterVerificationGasLimit: 150_001n })).toBe("paymasterVerificationGasLimit");
    expect(refusal({ ...measured, paymasterPostOpGasLimit: 50_001n })).toBe("paymasterPostOpGasLimit");
    expect(refusal({ ...measured, preVerificationGas: 3_000_000n })).toBe("total gas");
  });

  test("configured caps override the network's defaults field by field", () => {
    const caps = userOpCapsFor(presetOf("base").userOpCaps, { maxFeePerGasGwei: 1 });
    expect(caps.maxFeePerGasGwei).toBe(1);
    expect(caps.maxTotalGas).toBe(5_000_000);
    expect(() => assertWithinCaps(measured, caps)).toThrow(UserOpCapError);
  });
});
