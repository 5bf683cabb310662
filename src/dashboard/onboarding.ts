import type { FundedApprovalStatus } from "../onboarding/funding-store";
import { sumWei } from "../onboarding/funding-store";

/** A funding the service promised a payer (src/onboarding's funded_approvals, funding above 0) as the dashboard reads it. */
export type FundingRow = {
  network: string;
  payer: string;
  status: FundedApprovalStatus;
  fundingWei: string;
  createdAt: string;
};

/** A network's funded-approve setting, as the config parsed it. */
export type FundingBudget = { enabled: boolean; budgetWei: bigint; budgetWindowSeconds: number };

/**
 * What zero-gas onboarding cost one network: fundings created in [from, now] that were sent (a `pending` record was
 * never signed, so nobody got it), those whose payer used the approve's nonce elsewhere (`diverted`: the funding walked
 * away), and the budget window's spend counted as the claim counts it (src/onboarding/funding-store.ts: every record
 * of the window, sent or about to be), so the figure is what the next claim is checked against.
 */
export function onboardingFigures(
  network: string,
  budget: FundingBudget,
  rows: readonly FundingRow[],
  from: string,
  now: number,
) {
  const inRange = rows.filter((row) => row.createdAt >= from);
  const sent = inRange.filter((row) => row.status !== "pending");
  const diverted = sent.filter((row) => row.status === "diverted");
  const windowStart = new Date(now - budget.budgetWindowSeconds * 1000).toISOString();
  return {
    network,
    enabled: budget.enabled,
    payersFunded: new Set(sent.map((row) => row.payer.toLowerCase())).size,
    fundings: sent.length,
    fundingWei: sumWei(sent).toString(),
    diverted: { count: diverted.length, wei: sumWei(diverted).toString() },
    budget: {
      wei: budget.budgetWei.toString(),
      windowSeconds: budget.budgetWindowSeconds,
      spentWei: sumWei(rows.filter((row) => row.createdAt >= windowStart)).toString(),
    },
  };
}

/** The earliest time either figure needs: the range's start or the budget window's. */
export const fundingsSince = (from: string, budget: FundingBudget, now: number) => {
  const windowStart = new Date(now - budget.budgetWindowSeconds * 1000).toISOString();
  return windowStart < from ? windowStart : from;
};
