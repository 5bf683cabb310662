import { expect, test } from "bun:test";
import { type FundingRow, fundingsSince, onboardingFigures } from "./onboarding";

const now = Date.parse("2026-01-01T12:00:00.000Z");
const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
const row = (payer: string, status: FundingRow["status"], fundingWei: string, minutesAgo: number): FundingRow => ({
  network: "bsc",
  payer,
  status,
  fundingWei,
  createdAt: at(minutesAgo),
});

test("the range counts sent fundings only; the budget window counts every funding of the window, as the claim does", () => {
  const budget = { enabled: true, budgetWei: 1000n, budgetWindowSeconds: 2 * 3600 };
  const rows = [
    row("0xA", "used", "100", 10),
    row("0xa", "approved", "7", 20), // the same payer, funded for another token
    row("0xB", "diverted", "30", 30),
    row("0xC", "pending", "5", 1), // never signed: nobody got it, yet the window's next claim counts it
    row("0xD", "used", "400", 90), // before the hour's range, inside the two-hour window
  ];
  const figures = onboardingFigures("bsc", budget, rows, at(60), now);
  expect(figures).toEqual({
    network: "bsc",
    enabled: true,
    payersFunded: 2,
    fundings: 3,
    fundingWei: "137",
    diverted: { count: 1, wei: "30" },
    budget: { wei: "1000", windowSeconds: 7200, spentWei: "542" },
  });
  // The rows read start at the earlier of the range and the window.
  expect(fundingsSince(at(60), budget, now)).toBe(at(120));
  expect(fundingsSince(at(24 * 60), budget, now)).toBe(at(24 * 60));
});
