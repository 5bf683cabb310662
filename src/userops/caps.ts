import type { UserOp } from "@relay402/client/wire/user-operation";
import { formatGwei, parseGwei } from "viem";

/**
 * Upper bounds on what a bundler may propose for a sponsored UserOp. The paymaster's deposit pays up to
 * (sum of gas limits) × maxFeePerGas, so every figure the bundler answers is bounded before the paymaster signs.
 */
export type UserOpCaps = {
  maxFeePerGasGwei: number;
  /** callGasLimit + verificationGasLimit + preVerificationGas + both paymaster limits. */
  maxTotalGas: number;
  maxCallGasLimit: number;
  maxVerificationGasLimit: number;
  maxPaymasterVerificationGasLimit: number;
  maxPaymasterPostOpGasLimit: number;
};

/** A network's caps: its preset's defaults (src/networks/presets), each overridden by its config's `userOpCaps`. */
export function userOpCapsFor(defaults: UserOpCaps, configured: Partial<UserOpCaps> = {}): UserOpCaps {
  return { ...defaults, ...configured };
}

/** A bundler proposal above a cap: nothing is signed. */
export class UserOpCapError extends Error {
  override name = "UserOpCapError";
  constructor(
    readonly field: string,
    readonly proposed: string,
    readonly cap: string,
  ) {
    super(`the bundler proposed ${field} ${proposed}, above the cap of ${cap}`);
  }
}

/** Throws UserOpCapError for the first field of `op` above `caps`. */
export function assertWithinCaps(op: UserOp, caps: UserOpCaps): void {
  const maxFee = parseGwei(String(caps.maxFeePerGasGwei));
  for (const field of ["maxFeePerGas", "maxPriorityFeePerGas"] as const) {
    if (op[field] > maxFee) {
      throw new UserOpCapError(field, `${formatGwei(op[field])} gwei`, `${caps.maxFeePerGasGwei} gwei`);
    }
  }
  const limits = [
    ["callGasLimit", op.callGasLimit, caps.maxCallGasLimit],
    ["verificationGasLimit", op.verificationGasLimit, caps.maxVerificationGasLimit],
    ["paymasterVerificationGasLimit", op.paymasterVerificationGasLimit, caps.maxPaymasterVerificationGasLimit],
    ["paymasterPostOpGasLimit", op.paymasterPostOpGasLimit, caps.maxPaymasterPostOpGasLimit],
  ] as const;
  for (const [field, value, cap] of limits) {
    if (value > BigInt(cap)) throw new UserOpCapError(field, value.toString(), String(cap));
  }
  const total =
    op.callGasLimit +
    op.verificationGasLimit +
    op.preVerificationGas +
    op.paymasterVerificationGasLimit +
    op.paymasterPostOpGasLimit;
  if (total > BigInt(caps.maxTotalGas))
    throw new UserOpCapError("total gas", total.toString(), String(caps.maxTotalGas));
}
