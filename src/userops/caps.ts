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

/**
 * Measured on the devnet: a 20-transfer payment needs callGasLimit 632k, verification 60k, paymaster
 * verification 25k, no postOp; fees of about 1.2 gwei. Base's preVerificationGas carries the L1 data fee,
 * hence its larger total.
 */
const COMMON_CAPS = {
  maxCallGasLimit: 2_000_000,
  maxVerificationGasLimit: 300_000,
  maxPaymasterVerificationGasLimit: 150_000,
  maxPaymasterPostOpGasLimit: 50_000,
};
export const USER_OP_CAP_DEFAULTS: Record<"bsc" | "base", UserOpCaps> = {
  bsc: { maxFeePerGasGwei: 10, maxTotalGas: 3_000_000, ...COMMON_CAPS },
  base: { maxFeePerGasGwei: 5, maxTotalGas: 5_000_000, ...COMMON_CAPS },
};

export function userOpCapsFor(network: "bsc" | "base", configured: Partial<UserOpCaps> = {}): UserOpCaps {
  return { ...USER_OP_CAP_DEFAULTS[network], ...configured };
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
