import { Type as T } from "@sinclair/typebox";

/**
 * Funded approvals (src/onboarding/): a payer holding only tokens signs, without broadcasting, an `approve` of
 * the spender (Permit2 for x402, the relayer for EOA payments); when its native balance cannot pay that
 * approve, the service sends it exactly the approve's cost (gas limit × max fee, less what it holds) and
 * broadcasts it. That money can walk away (the payer may replace the approve with another transaction of the
 * same nonce), so every bound below is a cap on what the operator can lose.
 */
export const FUNDED_APPROVE_DEFAULTS = {
  enabled: true,
  /** The largest gas limit a funded approve may carry (an ERC-20 approve costs ~46k; x402's client signs 70k). */
  maxGas: 100_000,
  /** The largest max fee per gas a funded approve may carry, in gwei. */
  maxFeePerGasGwei: 5,
  /** Total native coins (wei) all fundings of one network may use per window: 0.01 BNB or ETH. */
  budgetWei: 10n ** 16n,
  budgetWindowSeconds: 3_600,
  /** k: the largest max fee accepted is max(k × the live fee, the floor); viem's estimate is base × 1.2 + tip. */
  feeMultiplier: 2,
  /** The floor of that bound, in gwei: what x402's client signs when its signer cannot estimate fees. */
  feeFloorGwei: 1,
  /** m: the largest gas limit accepted is max(m × the approve's eth_estimateGas, 70,000). */
  gasMultiplier: 1.5,
  /**
   * What one payer may keep of its fundings per window (funding less what its approve burnt, plus the funding's gas):
   * 0.001 BNB or ETH, twice the largest funding the caps allow (100,000 × 5 gwei), so an honest payer's funding always fits.
   */
  payerCapWei: 10n ** 15n,
  payerCapWindowSeconds: 86_400,
} as const;

/** The gas limit a funded approve may always carry when the other caps allow it: x402's client signs 70,000. */
export const APPROVE_GAS_FLOOR = 70_000n;

/** A network's `fundedApprove` setting as the file spells it; every field has a default. */
export const FundedApproveSchema = T.Object({
  /** Fund and broadcast signed approves at all (default true; the budget bounds it). */
  enabled: T.Optional(T.Boolean()),
  maxGas: T.Optional(T.Integer({ minimum: 21_000 })),
  maxFeePerGasGwei: T.Optional(T.Number({ exclusiveMinimum: 0 })),
  /** Wei, as a decimal string. */
  budgetWei: T.Optional(T.String({ pattern: "^[0-9]{1,78}$" })),
  budgetWindowSeconds: T.Optional(T.Integer({ minimum: 1 })),
  feeMultiplier: T.Optional(T.Number({ minimum: 1 })),
  feeFloorGwei: T.Optional(T.Number({ minimum: 0 })),
  gasMultiplier: T.Optional(T.Number({ minimum: 1 })),
  /** Wei, as a decimal string. */
  payerCapWei: T.Optional(T.String({ pattern: "^[0-9]{1,78}$" })),
  payerCapWindowSeconds: T.Optional(T.Integer({ minimum: 1 })),
});

export type FundedApproveConfig = {
  enabled: boolean;
  maxGas: bigint;
  /** Wei per gas. */
  maxFeePerGas: bigint;
  budgetWei: bigint;
  budgetWindowSeconds: number;
  /** The price bounds (approve-price-bounds.ts): k and m in thousandths, the floor in wei per gas. */
  feeMultiplierMilli: bigint;
  feeFloor: bigint;
  gasMultiplierMilli: bigint;
  payerCapWei: bigint;
  payerCapWindowSeconds: number;
};

const GWEI = 1_000_000_000;

/** The decoded setting: defaults applied, gwei turned into wei. */
export function fundedApproveConfig(input: {
  enabled?: boolean;
  maxGas?: number;
  maxFeePerGasGwei?: number;
  budgetWei?: string;
  budgetWindowSeconds?: number;
  feeMultiplier?: number;
  feeFloorGwei?: number;
  gasMultiplier?: number;
  payerCapWei?: string;
  payerCapWindowSeconds?: number;
}): FundedApproveConfig {
  const d = FUNDED_APPROVE_DEFAULTS;
  return {
    enabled: input.enabled ?? d.enabled,
    maxGas: BigInt(input.maxGas ?? d.maxGas),
    maxFeePerGas: BigInt(Math.round((input.maxFeePerGasGwei ?? d.maxFeePerGasGwei) * GWEI)),
    budgetWei: input.budgetWei === undefined ? d.budgetWei : BigInt(input.budgetWei),
    budgetWindowSeconds: input.budgetWindowSeconds ?? d.budgetWindowSeconds,
    feeMultiplierMilli: BigInt(Math.round((input.feeMultiplier ?? d.feeMultiplier) * 1000)),
    feeFloor: BigInt(Math.round((input.feeFloorGwei ?? d.feeFloorGwei) * GWEI)),
    gasMultiplierMilli: BigInt(Math.round((input.gasMultiplier ?? d.gasMultiplier) * 1000)),
    payerCapWei: input.payerCapWei === undefined ? d.payerCapWei : BigInt(input.payerCapWei),
    payerCapWindowSeconds: input.payerCapWindowSeconds ?? d.payerCapWindowSeconds,
  };
}

/** A token's smallest payment that may be onboarded with a funded approve, when its config leaves it out: 0.1 token. */
export const defaultFundedApproveMinPayment = (decimals: number): bigint =>
  decimals === 0 ? 1n : 10n ** BigInt(decimals) / 10n;
