import type { Static } from "@sinclair/typebox";
import type { LeanIMT } from "@zk-kit/lean-imt";
import { type Address, getAddress } from "viem";
import type { Relay402Client } from "../client.js";
import { Relay402ClientError } from "../errors.js";
import type { NetworkName } from "../types.js";
import { buildTree } from "../wire/incognito/notes.js";
import type { CircuitResponseSchema, LeavesResponseSchema } from "../wire/incognito/schemas.js";
import type { NoteStorage, StoredNote } from "./incognito-notes.js";

// What a client reads of the pool to prove against: its leaves (checked against the root the service states) and
// the circuit the pool verifies.

export type LeavesPage = Static<typeof LeavesResponseSchema>;
export type CircuitSummary = Static<typeof CircuitResponseSchema>;

/**
 * The pool's leaves from `GET /incognito/:network/leaves`, page by page (1,000 a page), after the `known` ones (a
 * tree synced earlier: only new leaves are fetched). The tree they make must have the root the service states
 * for them; the pool itself then refuses a proof for a root it never had, so a service serving a wrong tree
 * cannot make the client lose anything, only fail.
 */
export async function syncLeaves(
  client: Relay402Client,
  network: NetworkName,
  known: readonly bigint[] = [],
): Promise<{ leaves: bigint[]; root: bigint; pool: Address; tree: LeanIMT<bigint> }> {
  const leaves = [...known];
  for (;;) {
    const page = await client.get<LeavesPage>(`/incognito/${network}/leaves?from=${leaves.length}`);
    if (page.from !== leaves.length) {
      throw new Relay402ClientError("unexpected_response", `leaves page starts at ${page.from}, not ${leaves.length}`);
    }
    for (const leaf of page.leaves) leaves.push(BigInt(leaf));
    if (page.leaves.length === 0 || leaves.length >= page.total) {
      if (leaves.length !== page.total) {
        throw new Relay402ClientError(
          "unexpected_response",
          `the service counts ${page.total} leaves, served ${leaves.length}`,
        );
      }
      const tree = buildTree(leaves);
      const root = leaves.length === 0 ? 0n : tree.root;
      if (root !== BigInt(page.root)) {
        throw new Relay402ClientError("unexpected_response", "the served leaves do not make the served root", {
          field: "root",
        });
      }
      return { leaves, root, pool: getAddress(page.pool), tree };
    }
  }
}

/**
 * Notes stored `pending` (their settle's answer never came) whose commitment is in the tree become `shielded`:
 * their UserOp was mined after all.
 */
export async function reconcileNotes(
  storage: NoteStorage,
  network: NetworkName,
  leaves: readonly bigint[],
): Promise<StoredNote[]> {
  const notes = await storage.read();
  const found: StoredNote[] = [];
  for (const note of notes) {
    if (note.network !== network || note.status !== "pending") continue;
    const leafIndex = leaves.indexOf(BigInt(note.commitment));
    if (leafIndex >= 0) {
      note.status = "shielded";
      note.leafIndex = leafIndex;
      found.push(note);
    }
  }
  if (found.length > 0) await storage.write(notes);
  return found;
}

/** The circuit to prove with: its wasm and zkey as bytes or file paths. */
export type CircuitArtifacts = { wasm: Uint8Array | string; zkey: Uint8Array | string };

const servedCircuits = new Map<string, Promise<CircuitArtifacts & { id: string }>>();

/**
 * The circuit's wasm and zkey as the service serves them (`GET /incognito/circuit`, then its two URLs; fetched
 * once per service and setup id). The setup id must be the one /config names for the pool.
 */
export async function servedCircuit(client: Relay402Client, circuitId?: string): Promise<CircuitArtifacts> {
  const summary = await client.get<CircuitSummary>("/incognito/circuit");
  if (circuitId !== undefined && summary.id !== circuitId) {
    throw new Relay402ClientError("unexpected_response", `the circuit is ${summary.id}, /config names ${circuitId}`);
  }
  const key = `${client.url} ${summary.id}`;
  let artifacts = servedCircuits.get(key);
  if (!artifacts) {
    artifacts = Promise.all([client.getBytes(summary.wasm), client.getBytes(summary.zkey)]).then(([wasm, zkey]) => ({
      id: summary.id,
      wasm,
      zkey,
    }));
    servedCircuits.set(key, artifacts);
    artifacts.catch(() => servedCircuits.delete(key));
  }
  return artifacts;
}
