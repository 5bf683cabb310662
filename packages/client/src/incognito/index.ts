// @relay402/client/incognito: shield into and unshield from the privacy pool, with the proof made here. Needs
// snarkjs installed next to the client (an optional peer dependency); the circuit ships with the package.
export { type Note, newNote } from "../wire/incognito/notes.js";
export type { SolidityProof } from "../wire/incognito/proof.js";
export {
  assertUserOpIsShield,
  assertUserOpIsUnshield,
  decodeBatch,
  type ExpectedShield,
  type ExpectedUnshield,
} from "./check-incognito-user-op.js";
export {
  type CircuitArtifacts,
  type CircuitSummary,
  getIncognitoNetwork,
  type IncognitoNetwork,
  type IncognitoSettleResult,
  type IncognitoVerifyResult,
  type LeavesPage,
  maxWithdrawal,
  type PreparedUnshield,
  type ProveUnshieldParameters,
  proveUnshieldNote,
  reconcileNotes,
  type ShieldParameters,
  type ShieldResult,
  servedCircuit,
  shield,
  syncLeaves,
  type UnshieldParameters,
  type UnshieldResult,
  unshield,
  unshieldFee,
} from "./incognito.js";
export {
  memoryNoteStorage,
  type NoteStorage,
  notesFromJson,
  notesToJson,
  putNote,
  type StoredNote,
  spendableNotes,
  storedNote,
} from "./incognito-notes.js";
export { packagedCircuit } from "./packaged-circuit.js";
