import type * as Snarkjs from "snarkjs";

/**
 * snarkjs (and the curve code it pulls in) is loaded on the first proof or verification, not at start: a service
 * that never sees an unshield, and a payments-only client, do not pay its memory.
 */
let loaded: Promise<typeof Snarkjs> | undefined;
const snarkjs = () => (loaded ??= import("snarkjs"));

import { PUBLIC_SIGNALS, type PublicSignalName, SNARK_BASE_FIELD, SNARK_SCALAR_FIELD } from "./protocol.js";
import { useSingleThreadedCurve } from "./snark.js";

/**
 * A Groth16 proof as the pool's `unshield` and `incognitoData.proof` take it: decimal strings in the order of
 * snarkjs `exportSolidityCallData` (each pair of `b` swapped relative to snarkjs' own `pi_b`).
 */
export type SolidityProof = { a: [string, string]; b: [[string, string], [string, string]]; c: [string, string] };

export type PublicSignals = Record<PublicSignalName, bigint>;

/**
 * snarkjs' own proof (`pi_b` pairs in its order). Named here, not imported from snarkjs, which has no types of its
 * own: the published .d.ts then compile without snarkjs installed or declared.
 */
export type Groth16Proof = { pi_a: string[]; pi_b: string[][]; pi_c: string[]; protocol: string; curve: string };

export function toSolidityProof(proof: Groth16Proof): SolidityProof {
  const at = (values: readonly string[] | undefined, i: number) => {
    const value = values?.[i];
    if (value === undefined) throw new Error("malformed snarkjs proof");
    return value;
  };
  return {
    a: [at(proof.pi_a, 0), at(proof.pi_a, 1)],
    b: [
      [at(proof.pi_b[0], 1), at(proof.pi_b[0], 0)],
      [at(proof.pi_b[1], 1), at(proof.pi_b[1], 0)],
    ],
    c: [at(proof.pi_c, 0), at(proof.pi_c, 1)],
  };
}

/** The proof as the pool's `unshield` takes it: its coordinates as integers, in the same Solidity order. */
export function proofCallArgs(proof: SolidityProof) {
  return {
    a: [BigInt(proof.a[0]), BigInt(proof.a[1])] as const,
    b: [
      [BigInt(proof.b[0][0]), BigInt(proof.b[0][1])],
      [BigInt(proof.b[1][0]), BigInt(proof.b[1][1])],
    ] as const,
    c: [BigInt(proof.c[0]), BigInt(proof.c[1])] as const,
  };
}

/** The inverse of `toSolidityProof`, for verifying off-chain with snarkjs (z coordinates are 1: affine). */
export function fromSolidityProof(proof: SolidityProof): Groth16Proof {
  return {
    pi_a: [proof.a[0], proof.a[1], "1"],
    pi_b: [
      [proof.b[0][1], proof.b[0][0]],
      [proof.b[1][1], proof.b[1][0]],
      ["1", "0"],
    ],
    pi_c: [proof.c[0], proof.c[1], "1"],
    protocol: "groth16",
    curve: "bn128",
  };
}

/**
 * The first proof coordinate that is not a base field element, as its path in the proof (`a[0]`, `b[1][0]`, in
 * the Solidity order the request uses), or undefined when all are. snarkjs reduces coordinates modulo q, so this
 * check is what keeps the off-chain verify as strict as the pool's verifier.
 */
export function coordinateOutOfField(proof: SolidityProof): string | undefined {
  const coordinates: [string, string][] = [
    ["a[0]", proof.a[0]],
    ["a[1]", proof.a[1]],
    ["b[0][0]", proof.b[0][0]],
    ["b[0][1]", proof.b[0][1]],
    ["b[1][0]", proof.b[1][0]],
    ["b[1][1]", proof.b[1][1]],
    ["c[0]", proof.c[0]],
    ["c[1]", proof.c[1]],
  ];
  return coordinates.find(([, value]) => !(BigInt(value) >= 0n && BigInt(value) < SNARK_BASE_FIELD))?.[0];
}

/** The first public signal that is not a scalar field element (the verifier refuses it), or undefined. */
export function signalOutOfField(signals: PublicSignals): PublicSignalName | undefined {
  return PUBLIC_SIGNALS.find((name) => !(signals[name] >= 0n && signals[name] < SNARK_SCALAR_FIELD));
}

/** The verifier's input array, in the circuit's order. */
export function publicSignalsArray(signals: PublicSignals): string[] {
  return PUBLIC_SIGNALS.map((name) => String(signals[name]));
}

export function publicSignalsFromArray(values: readonly string[]): PublicSignals {
  if (values.length !== PUBLIC_SIGNALS.length) throw new Error(`expected ${PUBLIC_SIGNALS.length} public signals`);
  return Object.fromEntries(PUBLIC_SIGNALS.map((name, i) => [name, BigInt(values[i]!)])) as PublicSignals;
}

/** Proves an unshield (input from `unshieldInput`) with the circuit's wasm and zkey (paths or bytes). */
export async function proveUnshield(
  input: Record<string, unknown>,
  wasm: string | Uint8Array,
  zkey: string | Uint8Array,
): Promise<{ proof: SolidityProof; publicSignals: PublicSignals }> {
  const { groth16 } = await snarkjs();
  await useSingleThreadedCurve();
  const asFile = (f: string | Uint8Array) => (typeof f === "string" ? f : { type: "mem" as const, data: f });
  const { proof, publicSignals } = await groth16.fullProve(input, asFile(wasm), asFile(zkey));
  return { proof: toSolidityProof(proof), publicSignals: publicSignalsFromArray(publicSignals) };
}

/**
 * Verifies off-chain what the pool's verifier would accept: a coordinate ≥ q or a signal ≥ r is false, as it is
 * on-chain; a malformed proof is false, not an exception.
 */
export async function verifyUnshield(
  verificationKey: unknown,
  publicSignals: PublicSignals,
  proof: SolidityProof,
): Promise<boolean> {
  const { groth16 } = await snarkjs();
  await useSingleThreadedCurve();
  try {
    if (coordinateOutOfField(proof) !== undefined || signalOutOfField(publicSignals) !== undefined) return false;
    return await groth16.verify(verificationKey, publicSignalsArray(publicSignals), fromSolidityProof(proof));
  } catch {
    return false;
  }
}
