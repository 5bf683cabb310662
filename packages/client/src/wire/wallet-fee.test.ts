import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { walletPaymentFee } from "./wallet-fee.js";

describe("walletPaymentFee", () => {
  const token = { feeBps: 50, minFee: 10000n };

  test("is the proportional fee when above the minimum", () => {
    expect(walletPaymentFee(10_000_000n, token)).toBe(50_000n);
  });

  test("rounds up a fractional proportional fee", () => {
    expect(walletPaymentFee(10_000_001n, token)).toBe(50_001n);
    expect(walletPaymentFee(1n, { feeBps: 1, minFee: 0n })).toBe(1n);
  });

  test("is the minimum fee when the proportional fee is below it", () => {
    expect(walletPaymentFee(1_000n, token)).toBe(10_000n);
    expect(walletPaymentFee(2_000_000n, token)).toBe(10_000n);
  });

  test("zero bps charges exactly the minimum; zero bps and zero minimum charge nothing", () => {
    expect(walletPaymentFee(10n ** 30n, { feeBps: 0, minFee: 7n })).toBe(7n);
    expect(walletPaymentFee(10n ** 30n, { feeBps: 0, minFee: 0n })).toBe(0n);
  });

  test("10000 bps charges a fee equal to the sum", () => {
    expect(walletPaymentFee(12_345n, { feeBps: 10_000, minFee: 0n })).toBe(12_345n);
  });

  test("property: fee = max(minFee, ceil(sum × bps / 10000)) for any uint128 sum", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 2n ** 128n }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.bigInt({ min: 0n, max: 10n ** 24n }),
        (sum, bps, min) => {
          const fee = walletPaymentFee(sum, { feeBps: bps, minFee: min });
          expect(fee >= min).toBe(true);
          // ceil: fee × 10000 covers sum × bps and overshoots by less than 10000 (unless the minimum applies)
          if (fee > min) {
            expect(fee * 10_000n >= sum * BigInt(bps)).toBe(true);
            expect(fee * 10_000n - sum * BigInt(bps) < 10_000n).toBe(true);
          }
        },
      ),
    );
  });
});
