import type { FundedApprovalStatus } from "../onboarding/funding-store";
import { spentOf, sumWei } from "../onboarding/funding-store";

/** A funding the service promised a payer (src/onboarding's funded_approvals, funding above 0) as the dashboard reads it. */
export type FundingRow = {
  network: string;
  payer: string;
  status: FundedApprovalStatus;
  fundingWei: string;
  /** The funding's own gas, the approve's burn and what the payer kept; null until known. */
  fundingFeeWei: string | null;
  approveCostWei: string | null;
  keptWei: string | null;
  createdAt: string;
};

/** The payers shown by what they kept, most first. */
const TOP_PAYERS = 10;

/** A sum over the rows that recorded a figure, and how many did and did not. */
function knownSum(rows: readonly FundingRow[], figure: "fundingFeeWei" | "approveCostWei" | "keptWei") {
  const known = rows.filter((row) => row[figure] !== null);
  return {
    wei: known.reduce((sum, row) => sum + BigInt(row[figure] as string), 0n).toString(),
    known: known.length,
    unknown: rows.length - known.length,
  };
}

/** What each payer kept of its fundings (known outcomes), the largest first. */
function payersKept(rows: readonly FundingRow[]) {
  const byPayer = new Map<string, { payer: string; fundings: number; kept: bigint }>();
  for (const row of rows) {
    const payer = row.payer.toLowerCase();
    const entry = byPayer.get(payer) ?? { payer, fundings: 0, kept: 0n };
    entry.fundings += 1;
    entry.kept += row.keptWei === null ? 0n : BigInt(row.keptWei);
    byPayer.set(payer, entry);
  }
  return [...byPayer.values()]
    .sort((a, b) => (a.kept === b.kept ? a.payer.localeCompare(b.payer) : a.kept > b.kept ? -1 : 1))
    .slice(0, TOP_PAYERS)
    .map(({ payer, fundings, kept }) => ({ payer, fundings, keptWei: kept.toString() }));
}

/**
 * The fundings whose approve will never be mined, so the payer kept them: `diverted` (its nonce used elsewhere),
 * `refused` (the node would not take the funded approve), `abandoned` (not mined by its deadline).
 */
const LOST: readonly FundedApprovalStatus[] = ["diverted", "refused", "abandoned"];

/** A network's funded-approve setting, as the config parsed it. */
export type FundingBudget = { enabled: boolean; budgetWei: bigint; budgetWindowSeconds: number };

/**
 * What zero-gas onboarding cost one network: fundings created in [from, now] that were sent (a `pending` record was
 * never signed, so nobody got it), those whose payer used the approve's nonce elsewhere (`diverted`: the funding walked
 * away), every funding lost (LOST, diverted included), what they really cost (each funding's own gas, what its approve burnt, what its payer kept, and the payers
 * who kept most), and the budget window's spend counted as the claim counts it (src/onboarding/funding-store.ts:
 * every record of the window, sent or about to be, with its funding's gas), so the figure is what the next claim is
 * checked against.
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
  const lost = sent.filter((row) => LOST.includes(row.status));
  const windowStart = new Date(now - budget.budgetWindowSeconds * 1000).toISOString();
  return {
    network,
    enabled: budget.enabled,
    payersFunded: new Set(sent.map((row) => row.payer.toLowerCase())).size,
    fundings: sent.length,
    fundingWei: sumWei(sent).toString(),
    diverted: { count: diverted.length, wei: sumWei(diverted).toString() },
    lost: { count: lost.length, wei: sumWei(lost).toString() },
    fundingGas: knownSum(sent, "fundingFeeWei"),
    approveGas: knownSum(sent, "approveCostWei"),
    kept: knownSum(sent, "keptWei"),
    payersKept: payersKept(sent),
    budget: {
      wei: budget.budgetWei.toString(),
      windowSeconds: budget.budgetWindowSeconds,
      spentWei: spentOf(rows.filter((row) => row.createdAt >= windowStart)).toString(),
    },
  };
}

/** The earliest time either figure needs: the range's start or the budget window's. */
export const fundingsSince = (from: string, budget: FundingBudget, now: number) => {
  const windowStart = new Date(now - budget.budgetWindowSeconds * 1000).toISOString();
  return windowStart < from ? windowStart : from;
};
