import { expect, test } from "bun:test";
import { fundedApproveConfig } from "../config/funded-approve";
import { priceBounds } from "./approve-price-bounds";
import { approveCosts, feeOf } from "./funding-costs";
import { keptOf, spentOf } from "./funding-store";

test("what a payer kept: the funding less what its approve burnt, never below 0; all of it when diverted", () => {
  const receipt = { gasUsed: 46_000n, effectiveGasPrice: 100n };
  expect(feeOf(receipt)).toBe(4_600_000n);
  expect(approveCosts(7_000_000n, receipt)).toEqual({ approveCostWei: 4_600_000n, keptWei: 2_400_000n });
  // A payer that held part of the cost was funded less than the approve burnt: it kept nothing of ours.
  expect(approveCosts(1_000_000n, receipt)).toEqual({ approveCostWei: 4_600_000n, keptWei: 0n });
  expect(approveCosts(7_000_000n, "diverted")).toEqual({ approveCostWei: 0n, keptWei: 7_000_000n });
});

test("the budget counts each funding and its gas; a payer's cap counts what it kept, or the whole funding until known", () => {
  const rows = [
    { fundingWei: "100", fundingFeeWei: "21", keptWei: "30" },
    { fundingWei: "100", fundingFeeWei: null, keptWei: null },
  ];
  expect(spentOf(rows)).toBe(221n);
  expect(keptOf(rows)).toBe(30n + 21n + 100n);
});

test("the default price bounds: k × the live fee above the floor, the 1 gwei floor and 70,000 gas x402's client signs below", () => {
  const caps = fundedApproveConfig({});
  const gwei = 10n ** 9n;
  // The default per-payer cap holds the largest funding the published caps allow, so an honest payer's fits.
  expect(caps.payerCapWei).toBeGreaterThanOrEqual(caps.maxGas * caps.maxFeePerGas);
  // Base or BSC today: a live fee far under 1 gwei, an approve estimated at 46k gas.
  expect(priceBounds(caps, { liveFee: gwei / 20n, estimatedGas: 46_000n })).toEqual({
    maxFeePerGas: gwei,
    gas: 70_000n,
  });
  // A busy chain: 2 × 3 gwei, 1.5 × 60k gas.
  expect(priceBounds(caps, { liveFee: 3n * gwei, estimatedGas: 60_000n })).toEqual({
    maxFeePerGas: 6n * gwei,
    gas: 90_000n,
  });
  const tight = fundedApproveConfig({ feeMultiplier: 1.25, feeFloorGwei: 0.5, gasMultiplier: 1.1 });
  expect(priceBounds(tight, { liveFee: gwei, estimatedGas: 100_000n })).toEqual({
    maxFeePerGas: (gwei * 5n) / 4n,
    gas: 110_000n,
  });
});
