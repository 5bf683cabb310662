import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { buildTree, noteCommitment, unshieldInput } from "@relay402/client/wire/incognito/notes";
import {
  fromSolidityProof,
  proveUnshield,
  toSolidityProof,
  verifyUnshield,
} from "@relay402/client/wire/incognito/proof";
import { PUBLIC_SIGNALS, SNARK_SCALAR_FIELD } from "@relay402/client/wire/incognito/protocol";
import { useSingleThreadedCurve } from "@relay402/client/wire/incognito/snark";
import { poseidon2 } from "poseidon-lite/poseidon2";
import * as snarkjs from "snarkjs";
import { FIXTURE, fixtureNotes } from "../../scripts/incognito/fixtures";
import { exportVerifierSource } from "../../scripts/incognito/verifier";
import { CIRCUIT_ARTIFACTS, circuitDescriptor, loadCircuitDescriptor } from "../../src/incognito/artifacts";

// The committed trusted-setup output (scripts/incognito/setup.ts) must be one consistent set: the on-chain
// verifier, the verification key and the proving key of the same setup, for the committed circuit.
describe("incognito circuit artifacts", () => {
  const zkey = readFileSync(CIRCUIT_ARTIFACTS.zkey);
  const verificationKey = JSON.parse(readFileSync(CIRCUIT_ARTIFACTS.verificationKey, "utf8"));

  test("the committed Solidity verifier is the one snarkjs generates from the committed zkey", async () => {
    await useSingleThreadedCurve();
    const regenerated = await exportVerifierSource(zkey);
    expect(readFileSync(CIRCUIT_ARTIFACTS.verifier, "utf8")).toBe(regenerated);
  });

  test("the verification key and circuit.json describe the committed files and circuit", async () => {
    await useSingleThreadedCurve();
    expect(verificationKey).toEqual(await snarkjs.zKey.exportVerificationKey({ type: "mem", data: zkey }));
    expect(verificationKey.nPublic).toBe(PUBLIC_SIGNALS.length);
    expect(loadCircuitDescriptor()).toEqual(circuitDescriptor());
    expect(loadCircuitDescriptor().publicSignals).toEqual([...PUBLIC_SIGNALS]);
  });

  test("a proof from the committed wasm and zkey verifies off-chain, and no public signal can be changed", async () => {
    const { noteA, noteB, change1 } = fixtureNotes();
    const request = {
      note: noteA,
      tree: buildTree([noteCommitment(noteA), noteCommitment(noteB)]),
      withdrawAmount: 30_000_000n,
      fee: 1_000_000n,
      recipient: FIXTURE.recipient1,
      feeRecipient: FIXTURE.feeRecipient,
      change: change1,
    };
    const { input, root, nullifierHash, changeCommitment } = unshieldInput(request);
    const started = performance.now();
    const { proof, publicSignals } = await proveUnshield(input, CIRCUIT_ARTIFACTS.wasm, CIRCUIT_ARTIFACTS.zkey);
    console.log(`unshield proof: ${(performance.now() - started).toFixed(0)} ms`);
    expect(publicSignals).toEqual({
      root,
      nullifierHash,
      token: BigInt(FIXTURE.token),
      withdrawAmount: 30_000_000n,
      recipient: BigInt(FIXTURE.recipient1),
      feeRecipient: BigInt(FIXTURE.feeRecipient),
      fee: 1_000_000n,
      changeCommitment,
    });
    expect(await verifyUnshield(verificationKey, publicSignals, proof)).toBe(true);
    for (const name of PUBLIC_SIGNALS) {
      expect(await verifyUnshield(verificationKey, { ...publicSignals, [name]: publicSignals[name] + 1n }, proof)).toBe(
        false,
      );
    }
    // The wire encoding is snarkjs' Solidity call data order (b's pairs swapped).
    const raw = fromSolidityProof(proof);
    const callData = JSON.parse(`[${await snarkjs.groth16.exportSolidityCallData(raw, [])}]`) as unknown[];
    expect(decimal(callData.slice(0, 3))).toEqual([proof.a, proof.b, proof.c]);
    expect(toSolidityProof(raw)).toEqual(proof);
  }, 60_000);

  test("the circuit refuses to spend more than the note holds", async () => {
    const { noteA, change1 } = fixtureNotes();
    const { input } = unshieldInput({
      note: noteA,
      tree: buildTree([noteCommitment(noteA)]),
      withdrawAmount: noteA.amount,
      fee: 0n,
      recipient: FIXTURE.recipient1,
      feeRecipient: FIXTURE.feeRecipient,
      change: change1,
    });
    // One more than the note holds: change = amount - withdrawAmount - fee is negative, outside [0, 2^128), and
    // the witness generator itself fails (no proof can exist).
    const overdrawn = { ...input, withdrawAmount: String(noteA.amount + 1n) };
    await expect(proveUnshield(overdrawn, CIRCUIT_ARTIFACTS.wasm, zkey)).rejects.toThrow();
  });

  test("an index bit of 2 is refused by the 0/1 constraint (the public root is the one that bit yields)", async () => {
    const { noteA, noteB, change1 } = fixtureNotes();
    const leaves = [noteCommitment(noteA), noteCommitment(noteB)];
    const { input } = unshieldInput({
      note: noteA,
      tree: buildTree(leaves),
      withdrawAmount: 1n,
      fee: 0n,
      recipient: FIXTURE.recipient1,
      feeRecipient: FIXTURE.feeRecipient,
      change: change1,
    });
    // MultiMux1 with selector s outputs (c1 - c0) * s + c0 for each child: with s = 2 the pair is
    // (2 * sibling - node, 2 * node - sibling), a value the prover steers; only the 0/1 constraint stops it.
    const p = SNARK_SCALAR_FIELD;
    const [node, sibling] = leaves as [bigint, bigint];
    const forgedRoot = poseidon2([(((2n * sibling - node) % p) + p) % p, (((2n * node - sibling) % p) + p) % p]);
    const indices = [...(input.indices as string[])];
    indices[0] = "2";
    const forged = { ...input, indices, root: String(forgedRoot) };
    const bitLine =
      readFileSync(CIRCUIT_ARTIFACTS.source, "utf8")
        .split("\n")
        .findIndex((line) => line.includes("indices[i] * (indices[i] - 1) === 0")) + 1;
    expect(bitLine).toBeGreaterThan(0);
    await expect(proveUnshield(forged, CIRCUIT_ARTIFACTS.wasm, zkey)).rejects.toThrow(
      new RegExp(`LeanIMTRoot_\\d+ line: ${bitLine}\\b`),
    );
  });
});

/** snarkjs writes call data in hex; the wire format is decimal strings. */
function decimal(value: unknown): unknown {
  return Array.isArray(value) ? value.map(decimal) : BigInt(value as string).toString();
}
