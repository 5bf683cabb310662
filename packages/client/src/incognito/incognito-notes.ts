import { type Address, getAddress, type Hex } from "viem";
import type { NetworkName } from "../types.js";
import { fieldToHex, hexToField, type Note, noteCommitment } from "../wire/incognito/notes.js";

/**
 * A note the client keeps. `pending`: made and about to be inserted (a shield or an unshield's change being
 * settled); `shielded`: in the pool's tree at `leafIndex`; `spent`: unshielded (its nullifier is public).
 * The note is stored before its UserOp is signed, so that a crash between settle and the answer never loses the
 * secrets of tokens already in the pool (a `pending` note found in the tree becomes `shielded` at the next sync).
 */
export type StoredNote = {
  network: NetworkName;
  token: Address;
  amount: bigint;
  nullifier: bigint;
  secret: bigint;
  /** Poseidon(token, amount, Poseidon(nullifier, secret)): the leaf. */
  commitment: Hex;
  status: "pending" | "shielded" | "spent";
  leafIndex?: number;
  /** The settle's transaction that inserted (or spent) the note. */
  txHash?: Hex;
};

/**
 * Where notes live: a JSON file (`jsonFileNoteStorage`), memory, or the caller's own store (a keychain, an
 * encrypted database). Whoever reads it can spend the notes: keep it as secret as a private key.
 */
export type NoteStorage = {
  read(): StoredNote[] | Promise<StoredNote[]>;
  write(notes: StoredNote[]): void | Promise<void>;
};

export function storedNote(network: NetworkName, note: Note, status: StoredNote["status"]): StoredNote {
  return { network, ...note, token: getAddress(note.token), commitment: fieldToHex(noteCommitment(note)), status };
}

/** Inserts or replaces (by commitment) one note. */
export async function putNote(storage: NoteStorage, note: StoredNote): Promise<void> {
  const notes = await storage.read();
  const at = notes.findIndex((stored) => stored.commitment.toLowerCase() === note.commitment.toLowerCase());
  if (at >= 0) notes[at] = note;
  else notes.push(note);
  await storage.write(notes);
}

/** The notes that can be spent: in the tree, not yet unshielded, of a positive amount. */
export async function spendableNotes(storage: NoteStorage, network: NetworkName, token?: Address) {
  return (await storage.read()).filter(
    (note) =>
      note.network === network &&
      note.status === "shielded" &&
      note.amount > 0n &&
      (token === undefined || note.token.toLowerCase() === token.toLowerCase()),
  );
}

type NoteJson = Omit<StoredNote, "amount" | "nullifier" | "secret"> & { amount: string; nullifier: Hex; secret: Hex };

export function notesToJson(notes: readonly StoredNote[]): string {
  const json: NoteJson[] = notes.map((note) => ({
    ...note,
    amount: note.amount.toString(),
    nullifier: fieldToHex(note.nullifier),
    secret: fieldToHex(note.secret),
  }));
  return `${JSON.stringify({ version: 1, notes: json }, null, 2)}\n`;
}

export function notesFromJson(text: string): StoredNote[] {
  const parsed = JSON.parse(text) as { version?: number; notes?: NoteJson[] };
  if (parsed.version !== 1 || !Array.isArray(parsed.notes)) throw new Error("not a relay402 notes file (version 1)");
  return parsed.notes.map((note) => {
    const stored: StoredNote = {
      ...note,
      token: getAddress(note.token),
      amount: BigInt(note.amount),
      nullifier: hexToField(note.nullifier),
      secret: hexToField(note.secret),
    };
    // A file edited by hand (or for another note) must not make the client prove for a leaf that is not its own.
    if (fieldToHex(noteCommitment(stored)).toLowerCase() !== note.commitment.toLowerCase()) {
      throw new Error(`note ${note.commitment}: its commitment does not match its token, amount and secrets`);
    }
    return stored;
  });
}

/** Notes in memory (tests, or a caller that persists them itself). */
export function memoryNoteStorage(initial: StoredNote[] = []): NoteStorage {
  let notes = initial.map((note) => ({ ...note }));
  return {
    read: () => notes.map((note) => ({ ...note })),
    write: (next) => {
      notes = next.map((note) => ({ ...note }));
    },
  };
}
