import { type Hex, hexToBigInt, numberToHex } from "viem";

/** The unshield circuit's interface (docs/incognito.md); the circuit, the verifier and the pool depend on it. */

/** BN254 scalar field: every hash input and output, and every public signal, is below it. */
export const SNARK_SCALAR_FIELD = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;

/**
 * BN254 base field: every proof coordinate (a, b, c) is below it. The pairing library reduces a larger value
 * modulo q, so `a[0] + q` verifies off-chain while the pool's verifier refuses it.
 */
export const SNARK_BASE_FIELD = 21888242871839275222246405745257275088696311157297823662689037894645226208583n;

/** Amounts (shielded, withdrawn, fee, change) are below 2^128: the circuit's range checks and the pool's limit. */
export const MAX_AMOUNT_EXCLUSIVE = 1n << 128n;

/** Maximum depth of the pool's Lean incremental Merkle tree (2^20 leaves). */
export const TREE_DEPTH = 20;

/** The circuit's public signals, in the order of the verifier's input array. */
export const PUBLIC_SIGNALS = [
  "root",
  "nullifierHash",
  "token",
  "withdrawAmount",
  "recipient",
  "feeRecipient",
  "fee",
  "changeCommitment",
] as const;

export type PublicSignalName = (typeof PUBLIC_SIGNALS)[number];

/** Field elements on the wire: 0x-prefixed 32-byte hex. */
export function fieldToHex(value: bigint): Hex {
  if (value < 0n || value >= SNARK_SCALAR_FIELD) throw new RangeError("not a field element");
  return numberToHex(value, { size: 32 });
}

export function hexToField(value: Hex): bigint {
  const n = hexToBigInt(value);
  if (n >= SNARK_SCALAR_FIELD) throw new RangeError("not a field element");
  return n;
}
