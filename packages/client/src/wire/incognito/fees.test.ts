import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { unshieldMinimumFee } from "./fees.js";

describe("unshieldMinimumFee", () => {
  const token = { unshieldFeeBps: 30, unshieldMinFee: 5_000n };

  test("the proportional fee, rounded up, when above the minimum", () => {
    expect(unshieldMinimumFee(10_000_000n, token)).toBe(30_000n);
    expect(unshieldMinimumFee(10_000_001n, token)).toBe(30_001n);
  });

  test("the minimum when the proportional fee is below it, also for a withdrawal of 0 (a change-only unshield)", () => {
    expect(unshieldMinimumFee(1_000n, token)).toBe(5_000n);
    expect(unshieldMinimumFee(0n, token)).toBe(5_000n);
    expect(unshieldMinimumFee(0n, { unshieldFeeBps: 30, unshieldMinFee: 0n })).toBe(0n);
  });

  test("property: max(min, ceil(amount × bps / 10000)) for any amount below 2^128", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 2n ** 128n - 1n }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.bigInt({ min: 0n, max: 10n ** 24n }),
        (amount, bps, min) => {
          const fee = unshieldMinimumFee(amount, { unshieldFeeBps: bps, unshieldMinFee: min });
          expect(fee >= min).toBe(true);
          expect(fee * 10_000n >= amount * BigInt(bps)).toBe(true);
          if (fee > min) expect(fee * 10_000n - amount * BigInt(bps) < 10_000n).toBe(true);
        },
      ),
    );
  });
});
