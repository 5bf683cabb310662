import { LeanIMT } from "@zk-kit/lean-imt";
import { poseidon1 } from "poseidon-lite/poseidon1";
import { poseidon2 } from "poseidon-lite/poseidon2";
import { poseidon3 } from "poseidon-lite/poseidon3";
import { type Address, bytesToHex, hexToBigInt } from "viem";
import { MAX_AMOUNT_EXCLUSIVE, TREE_DEPTH } from "./protocol.js";

// The wire form of field elements lives with the protocol constants (no Poseidon there, so a service that never
// shields does not load it); the client has always found them here too.
export { fieldToHex, hexToField } from "./protocol.js";

/**
 * The note arithmetic of the privacy pool (docs/incognito.md), identical in the circuit (circomlib Poseidon), the
 * pool (poseidon-solidity) and here (poseidon-lite): one definition for the service, the client and the tests.
 */

/** A note: knowing `nullifier` and `secret` is owning `amount` of `token` in the pool. */
export type Note = { token: Address; amount: bigint; nullifier: bigint; secret: bigint };

/** A uniformly random field element (31 bytes, so always below the field without rejection). */
export function randomFieldElement(): bigint {
  return hexToBigInt(bytesToHex(crypto.getRandomValues(new Uint8Array(31))));
}

export function newNote(token: Address, amount: bigint): Note {
  return { token, amount, nullifier: randomFieldElement(), secret: randomFieldElement() };
}

/** `Poseidon(nullifier, secret)`: what `PrivacyPool.shield` takes, hiding both. */
export function precommitmentOf(nullifier: bigint, secret: bigint): bigint {
  return poseidon2([nullifier, secret]);
}

/** `Poseidon(token, amount, precommitment)`: the leaf, computed by the pool at shield. */
export function commitmentOf(token: Address, amount: bigint, precommitment: bigint): bigint {
  if (amount < 0n || amount >= MAX_AMOUNT_EXCLUSIVE) throw new RangeError("amount must be in [0, 2^128)");
  return poseidon3([hexToBigInt(token), amount, precommitment]);
}

/** `Poseidon(nullifier)`: made public, and marked spent by the pool, when the note is unshielded. */
export function nullifierHashOf(nullifier: bigint): bigint {
  return poseidon1([nullifier]);
}

export function notePrecommitment(note: Note): bigint {
  return precommitmentOf(note.nullifier, note.secret);
}

export function noteCommitment(note: Note): bigint {
  return commitmentOf(note.token, note.amount, notePrecommitment(note));
}

const hashPair = (a: bigint, b: bigint) => poseidon2([a, b]);

/** The pool's tree rebuilt from its leaves (in insertion order); `.root` is the pool's `currentRoot()`. */
export function buildTree(leaves: readonly bigint[]): LeanIMT<bigint> {
  return new LeanIMT(hashPair, [...leaves]);
}

/** What an unshield needs: the note, the tree it is in, where the money goes, and the change note's secrets. */
export type UnshieldRequest = {
  note: Note;
  tree: LeanIMT<bigint>;
  withdrawAmount: bigint;
  fee: bigint;
  recipient: Address;
  feeRecipient: Address;
  change: { nullifier: bigint; secret: bigint };
};

/** The circuit's input (decimal strings) for an unshield, and the public values and change note it commits to. */
export function unshieldInput(request: UnshieldRequest): {
  input: Record<string, string | string[]>;
  root: bigint;
  nullifierHash: bigint;
  changeNote: Note;
  changeCommitment: bigint;
} {
  const { note, tree, withdrawAmount, fee, recipient, feeRecipient, change } = request;
  const changeAmount = note.amount - withdrawAmount - fee;
  if (withdrawAmount < 0n || fee < 0n || changeAmount < 0n) {
    throw new RangeError("withdrawAmount + fee exceeds the note's amount");
  }
  const leafIndex = tree.indexOf(noteCommitment(note));
  if (leafIndex < 0) throw new Error("the note's commitment is not in the tree");
  // LeanIMT proofs skip the levels where the node has no sibling; `index` holds only the used levels' bits.
  const proof = tree.generateProof(leafIndex);
  const depth = proof.siblings.length;
  if (depth > TREE_DEPTH) throw new Error(`tree deeper than ${TREE_DEPTH}`);
  const indices = Array.from({ length: TREE_DEPTH }, (_, i) => (i < depth ? String((proof.index >> i) & 1) : "0"));
  const siblings = Array.from({ length: TREE_DEPTH }, (_, i) => String(proof.siblings[i] ?? 0n));
  // Only the secrets are taken from `change`: a whole Note passed there must not bring its own amount or token.
  const changeNote: Note = {
    token: note.token,
    amount: changeAmount,
    nullifier: change.nullifier,
    secret: change.secret,
  };
  const changeCommitment = noteCommitment(changeNote);
  const nullifierHash = nullifierHashOf(note.nullifier);
  return {
    input: {
      root: String(proof.root),
      nullifierHash: String(nullifierHash),
      token: String(hexToBigInt(note.token)),
      withdrawAmount: String(withdrawAmount),
      recipient: String(hexToBigInt(recipient)),
      feeRecipient: String(hexToBigInt(feeRecipient)),
      fee: String(fee),
      changeCommitment: String(changeCommitment),
      amount: String(note.amount),
      nullifier: String(note.nullifier),
      secret: String(note.secret),
      depth: String(depth),
      indices,
      siblings,
      changeNullifier: String(change.nullifier),
      changeSecret: String(change.secret),
    },
    root: proof.root,
    nullifierHash,
    changeNote,
    changeCommitment,
  };
}
