import type { TransactionReceipt } from "viem";
import type { FundingCosts } from "./funding-store";

type Paid = Pick<TransactionReceipt, "gasUsed" | "effectiveGasPrice">;

/** What a mined transaction cost its sender. */
export const feeOf = (receipt: Paid): bigint => receipt.gasUsed * receipt.effectiveGasPrice;

/**
 * What a funding left with its payer once its approve's outcome is known: the approve burnt what its receipt says
 * (mined, whether or not it reverted), and the rest of the funding stayed with the payer; a diverted approve burnt
 * nothing of ours, so the payer kept the whole funding.
 */
export function approveCosts(funding: bigint, outcome: Paid | "diverted"): FundingCosts {
  if (outcome === "diverted") return { approveCostWei: 0n, keptWei: funding };
  const approveCostWei = feeOf(outcome);
  return { approveCostWei, keptWei: funding > approveCostWei ? funding - approveCostWei : 0n };
}
