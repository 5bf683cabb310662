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
} as const;

/** A network's `fundedApprove` setting as the file spells it; every field has a default. */
export const FundedApproveSchema = T.Object({
  /** Fund and broadcast signed approves at all (default true; the budget bounds it). */
  enabled: T.Optional(T.Boolean()),
  maxGas: T.Optional(T.Integer({ minimum: 21_000 })),
  maxFeePerGasGwei: T.Optional(T.Number({ exclusiveMinimum: 0 })),
  /** Wei, as a decimal string. */
  budgetWei: T.Optional(T.String({ pattern: "^[0-9]{1,78}$" })),
  budgetWindowSeconds: T.Optional(T.Integer({ minimum: 1 })),
});

export type FundedApproveConfig = {
  enabled: boolean;
  maxGas: bigint;
  /** Wei per gas. */
  maxFeePerGas: bigint;
  budgetWei: bigint;
  budgetWindowSeconds: number;
};

const GWEI = 1_000_000_000;

/** The decoded setting: defaults applied, gwei turned into wei. */
export function fundedApproveConfig(input: {
  enabled?: boolean;
  maxGas?: number;
  maxFeePerGasGwei?: number;
  budgetWei?: string;
  budgetWindowSeconds?: number;
}): FundedApproveConfig {
  const d = FUNDED_APPROVE_DEFAULTS;
  return {
    enabled: input.enabled ?? d.enabled,
    maxGas: BigInt(input.maxGas ?? d.maxGas),
    maxFeePerGas: BigInt(Math.round((input.maxFeePerGasGwei ?? d.maxFeePerGasGwei) * GWEI)),
    budgetWei: input.budgetWei === undefined ? d.budgetWei : BigInt(input.budgetWei),
    budgetWindowSeconds: input.budgetWindowSeconds ?? d.budgetWindowSeconds,
  };
}

/** A token's smallest payment that may be onboarded with a funded approve, when its config leaves it out: 0.1 token. */
export const defaultFundedApproveMinPayment = (decimals: number): bigint =>
  decimals === 0 ? 1n : 10n ** BigInt(decimals) / 10n;
