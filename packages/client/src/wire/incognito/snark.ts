let seeded: Promise<void> | undefined;

/**
 * snarkjs builds a multi-threaded BN254 curve on web workers, which hangs under Bun. Seeding ffjavascript's
 * global curve with a single-threaded one (the copy snarkjs imports, 0.3.1) makes every later snarkjs call reuse
 * it. Call (and await) this once snarkjs is imported (the curve built before snarkjs loads is not the one it
 * reuses: proving then hangs), before any snarkjs proving, verifying or key generation.
 */
export function useSingleThreadedCurve(): Promise<void> {
  // Loaded here, on the first proof or verification, not at start (see proof.ts).
  seeded ??= import("ffjavascript")
    .then(({ buildBn128 }) => buildBn128(true))
    .then((curve) => {
      (globalThis as { curve_bn128?: unknown }).curve_bn128 = curve;
    });
  return seeded;
}
