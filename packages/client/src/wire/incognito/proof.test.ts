import { describe, expect, test } from "bun:test";
import { coordinateOutOfField, type PublicSignals, type SolidityProof, signalOutOfField } from "./proof.js";
import { PUBLIC_SIGNALS, SNARK_BASE_FIELD, SNARK_SCALAR_FIELD } from "./protocol.js";

const q = SNARK_BASE_FIELD;
const r = SNARK_SCALAR_FIELD;

const proof = (value: (i: number) => bigint): SolidityProof => {
  const s = (i: number) => value(i).toString();
  return {
    a: [s(0), s(1)],
    b: [
      [s(2), s(3)],
      [s(4), s(5)],
    ],
    c: [s(6), s(7)],
  };
};
const PATHS = ["a[0]", "a[1]", "b[0][0]", "b[0][1]", "b[1][0]", "b[1][1]", "c[0]", "c[1]"];

describe("proof coordinates and public signals as field elements", () => {
  test("every coordinate below q passes; q itself and beyond are named by their path", () => {
    expect(coordinateOutOfField(proof(() => q - 1n))).toBeUndefined();
    expect(coordinateOutOfField(proof(() => 0n))).toBeUndefined();
    PATHS.forEach((path, i) => {
      expect(coordinateOutOfField(proof((j) => (j === i ? q : 1n)))).toBe(path);
      expect(coordinateOutOfField(proof((j) => (j === i ? q + 5n : 1n)))).toBe(path);
      expect(coordinateOutOfField(proof((j) => (j === i ? 2n ** 256n - 1n : 1n)))).toBe(path);
    });
    // The first one in request order.
    expect(coordinateOutOfField(proof((j) => (j >= 3 ? q : 1n)))).toBe("b[0][1]");
  });

  test("every public signal below r passes; r itself is named", () => {
    const signals = (value: (name: string) => bigint) =>
      Object.fromEntries(PUBLIC_SIGNALS.map((name) => [name, value(name)])) as PublicSignals;
    expect(signalOutOfField(signals(() => r - 1n))).toBeUndefined();
    for (const name of PUBLIC_SIGNALS) {
      expect(signalOutOfField(signals((n) => (n === name ? r : 1n)))).toBe(name);
      expect(signalOutOfField(signals((n) => (n === name ? r + 1n : 1n)))).toBe(name);
      // q > r: a base field element may still be outside the scalar field.
      expect(signalOutOfField(signals((n) => (n === name ? q - 1n : 1n)))).toBe(name);
    }
  });
});
