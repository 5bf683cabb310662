import { expect, test } from "bun:test";
import { type FundingRow, fundingsSince, onboardingFigures } from "./onboarding";

const now = Date.parse("2026-01-01T12:00:00.000Z");
const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
/** A funding; `costs` are its funding's gas, its approve's burn and what its payer kept, once known. */
const row = (
  payer: string,
  status: FundingRow["status"],
  fundingWei: string,
  minutesAgo: number,
  costs: string[] = [],
): FundingRow => ({
  network: "bsc",
  payer,
  status,
  fundingWei,
  fundingFeeWei: costs[0] ?? null,
  approveCostWei: costs[1] ?? null,
  keptWei: costs[2] ?? null,
  createdAt: at(minutesAgo),
});

test("the range counts sent fundings only (diverted, refused and abandoned ones as lost); the budget window counts every funding of the window, as the claim does", () => {
  const budget = { enabled: true, budgetWei: 1000n, budgetWindowSeconds: 2 * 3600 };
  const rows = [
    row("0xA", "used", "100", 10, ["2", "46", "54"]),
    row("0xa", "approved", "7", 20, ["2", "7", "0"]), // the same payer, funded for another token
    row("0xB", "diverted", "30", 30, ["2", "0", "30"]),
    row("0xC", "pending", "5", 1), // never signed: nobody got it, yet the window's next claim counts it
    row("0xD", "used", "400", 90, ["3", "46", "354"]), // before the hour's range, inside the two-hour window
    row("0xE", "approve_sent", "9", 5, ["1"]), // funded, its approve's outcome not known yet
    row("0xF", "refused", "11", 40, ["1", "0", "11"]), // the node refused the funded approve: the payer kept it
    row("0xG", "abandoned", "13", 50, ["1", "0", "13"]), // never mined by its deadline
  ];
  const figures = onboardingFigures("bsc", budget, rows, at(60), now);
  expect(figures).toEqual({
    network: "bsc",
    enabled: true,
    payersFunded: 5,
    fundings: 6,
    fundingWei: "170",
    diverted: { count: 1, wei: "30" },
    lost: { count: 3, wei: "54" },
    fundingGas: { wei: "9", known: 6, unknown: 0 },
    approveGas: { wei: "53", known: 5, unknown: 1 },
    kept: { wei: "108", known: 5, unknown: 1 },
    payersKept: [
      { payer: "0xa", fundings: 2, keptWei: "54" },
      { payer: "0xb", fundings: 1, keptWei: "30" },
      { payer: "0xg", fundings: 1, keptWei: "13" },
      { payer: "0xf", fundings: 1, keptWei: "11" },
      { payer: "0xe", fundings: 1, keptWei: "0" },
    ],
    // Every funding of the window with its own gas, as the claim counts it.
    budget: { wei: "1000", windowSeconds: 7200, spentWei: "587" },
  });
  // The rows read start at the earlier of the range and the window.
  expect(fundingsSince(at(60), budget, now)).toBe(at(120));
  expect(fundingsSince(at(24 * 60), budget, now)).toBe(at(24 * 60));
});
