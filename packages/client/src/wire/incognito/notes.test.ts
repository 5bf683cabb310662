import { describe, expect, test } from "bun:test";
import { poseidon2 } from "poseidon-lite/poseidon2";
import { getAddress } from "viem";
import {
  buildTree,
  commitmentOf,
  fieldToHex,
  hexToField,
  newNote,
  noteCommitment,
  nullifierHashOf,
  precommitmentOf,
  randomFieldElement,
  unshieldInput,
} from "./notes.js";
import { fromSolidityProof, publicSignalsArray, publicSignalsFromArray, toSolidityProof } from "./proof.js";
import { MAX_AMOUNT_EXCLUSIVE, PUBLIC_SIGNALS, SNARK_SCALAR_FIELD, TREE_DEPTH } from "./protocol.js";

const token = getAddress("0x7e57000000000000000000000000000000000001");
const to = getAddress("0x7e57000000000000000000000000000000000002");

describe("incognito notes", () => {
  test("Poseidon is circomlib's (its published test vector)", () => {
    expect(poseidon2([1n, 2n])).toBe(7853200120776062878684798364095072458815029376092732009249414926327459813530n);
  });

  test("the note hashes compose as the protocol says", () => {
    const note = { token, amount: 5n, nullifier: 11n, secret: 12n };
    const precommitment = precommitmentOf(11n, 12n);
    expect(precommitment).toBe(poseidon2([11n, 12n]));
    expect(noteCommitment(note)).toBe(commitmentOf(token, 5n, precommitment));
    expect(noteCommitment(note)).not.toBe(noteCommitment({ ...note, amount: 6n }));
    expect(noteCommitment(note)).not.toBe(noteCommitment({ ...note, token: to }));
    expect(nullifierHashOf(11n)).not.toBe(nullifierHashOf(12n));
    expect(() => commitmentOf(token, MAX_AMOUNT_EXCLUSIVE, precommitment)).toThrow(RangeError);
    expect(() => commitmentOf(token, -1n, precommitment)).toThrow(RangeError);
  });

  test("random field elements are below the field and differ", () => {
    const values = Array.from({ length: 50 }, randomFieldElement);
    for (const v of values) expect(v < SNARK_SCALAR_FIELD && v >= 0n).toBe(true);
    expect(new Set(values).size).toBe(50);
    const note = newNote(token, 7n);
    expect(note.nullifier).not.toBe(note.secret);
  });

  test("field elements are 32-byte hex on the wire, and out-of-field values are refused", () => {
    expect(fieldToHex(1n)).toBe(`0x${"0".repeat(63)}1`);
    expect(hexToField(fieldToHex(SNARK_SCALAR_FIELD - 1n))).toBe(SNARK_SCALAR_FIELD - 1n);
    expect(() => fieldToHex(SNARK_SCALAR_FIELD)).toThrow(RangeError);
    expect(() => hexToField(fieldToHex(SNARK_SCALAR_FIELD - 1n).replace("0x30", "0x40") as `0x${string}`)).toThrow(
      RangeError,
    );
  });

  test("the tree is a LeanIMT: a lone last node passes up unhashed", () => {
    const leaves = [1n, 2n, 3n];
    expect(buildTree(leaves.slice(0, 1)).root).toBe(1n);
    expect(buildTree(leaves).root).toBe(poseidon2([poseidon2([1n, 2n]), 3n]));
  });

  test("unshield input: skipped levels are left out of depth, indices and siblings", () => {
    const notes = [newNote(token, 10n), newNote(token, 20n), newNote(token, 30n)];
    const leaves = notes.map(noteCommitment);
    const tree = buildTree(leaves);
    const change = { nullifier: 5n, secret: 6n };
    const base = { tree, withdrawAmount: 3n, fee: 1n, recipient: to, feeRecipient: to, change };

    // Leaf 2 has no sibling at level 0: one hashing level, with the node on the right.
    const third = unshieldInput({ ...base, note: notes[2]! });
    expect(third.input.depth).toBe("1");
    expect(third.input.indices).toEqual(["1", ...Array(TREE_DEPTH - 1).fill("0")]);
    expect(third.input.siblings).toEqual([
      String(poseidon2([leaves[0]!, leaves[1]!])),
      ...Array(TREE_DEPTH - 1).fill("0"),
    ]);
    expect(third.root).toBe(tree.root);
    expect(third.changeNote.amount).toBe(26n);
    expect(third.changeCommitment).toBe(commitmentOf(token, 26n, precommitmentOf(5n, 6n)));
    expect(third.nullifierHash).toBe(nullifierHashOf(notes[2]!.nullifier));

    // Leaf 1: right child at level 0, left at level 1.
    const second = unshieldInput({ ...base, note: notes[1]! });
    expect(second.input.depth).toBe("2");
    expect(second.input.indices!.slice(0, 2)).toEqual(["1", "0"]);
    expect(second.input.siblings!.slice(0, 2)).toEqual([String(leaves[0]), String(leaves[2])]);

    // A whole note given as `change` lends only its secrets: the change amount is still what is left.
    const wholeNote = { ...newNote(getAddress("0x7e57000000000000000000000000000000000009"), 999n), nullifier: 5n };
    const fromNote = unshieldInput({ ...base, note: notes[2]!, change: { ...wholeNote, secret: 6n } });
    expect(fromNote.changeNote).toEqual({ token, amount: 26n, nullifier: 5n, secret: 6n });
    expect(fromNote.changeCommitment).toBe(third.changeCommitment);

    expect(() => unshieldInput({ ...base, note: notes[0]!, withdrawAmount: 10n })).toThrow(RangeError);
    expect(() => unshieldInput({ ...base, note: newNote(token, 10n) })).toThrow(/not in the tree/);
  });

  test("proofs convert to the Solidity order (b's pairs swapped) and back", () => {
    const raw = {
      pi_a: ["1", "2", "1"],
      pi_b: [
        ["3", "4"],
        ["5", "6"],
        ["1", "0"],
      ],
      pi_c: ["7", "8", "1"],
      protocol: "groth16",
      curve: "bn128",
    };
    const proof = toSolidityProof(raw);
    expect(proof).toEqual({
      a: ["1", "2"],
      b: [
        ["4", "3"],
        ["6", "5"],
      ],
      c: ["7", "8"],
    });
    expect(fromSolidityProof(proof)).toEqual(raw);
    const signals = publicSignalsFromArray(PUBLIC_SIGNALS.map((_, i) => String(i + 1)));
    expect(signals.root).toBe(1n);
    expect(signals.changeCommitment).toBe(8n);
    expect(publicSignalsArray(signals)).toEqual(["1", "2", "3", "4", "5", "6", "7", "8"]);
    expect(() => publicSignalsFromArray(["1"])).toThrow();
  });
});
