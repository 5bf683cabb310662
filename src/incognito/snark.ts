import { buildBn128 } from "ffjavascript";

let seeded: Promise<void> | undefined;

/**
 * snarkjs builds a multi-threaded BN254 curve on web workers, which hangs under Bun. Seeding ffjavascript's
 * global curve with a single-threaded one (the copy snarkjs imports, 0.3.1) makes every later snarkjs call reuse
 * it. Call (and await) this before any snarkjs proving, verifying or key generation.
 */
export function useSingleThreadedCurve(): Promise<void> {
  seeded ??= buildBn128(true).then((curve) => {
    (globalThis as { curve_bn128?: unknown }).curve_bn128 = curve;
  });
  return seeded;
}
