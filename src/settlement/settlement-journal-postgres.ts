import { and, eq, inArray, sql } from "drizzle-orm";
import type { Async } from "../db/async-port";
import type { PgDb } from "../db/postgres/open";
import type { eoaSettlements, swapSettlements, x402Settlements } from "../db/postgres/schema";
import {
  figureColumns,
  RecordNotPendingError,
  type SettlementOutcome,
  type SettlementStoreOf,
} from "./settlement-journal";

/** The port type lives in src/db/async-port.ts (the flows take it); re-exported for the adapters. */
export type { Async } from "../db/async-port";

export type AsyncSettlementStoreOf<Row, New, Key> = Async<SettlementStoreOf<Row, New, Key>>;

/** How often a claim looks again when the record that beat its insert was released before it could read it. */
const CLAIM_ATTEMPTS = 3;

/**
 * The claim of a settlement's key on PostgreSQL, from any number of connections and instances: exactly one caller
 * gets `created: true`, every other one the record that owns the key.
 *
 * `insert` must be one `INSERT … ON CONFLICT (key) DO NOTHING RETURNING *` statement: the unique index decides, with
 * no await between a find and a claim for another caller to slip into (SQLite's claimRecord relies on having no
 * await at all). A row that does not exist yet cannot be locked, so `SELECT … FOR UPDATE SKIP LOCKED` does not fit
 * here; it fits where instances share out existing rows (resuming a dead instance's unfinished records).
 *
 * The loser reads the owner with a second statement, not in the insert's own statement (a CTE): under READ
 * COMMITTED, ON CONFLICT waits for a concurrent inserter to commit, but the statement's snapshot was taken before,
 * so a read inside it does not see the row it conflicted with; the next statement's snapshot does. If that record
 * is gone by then (released: its transaction was never sent), the key is free again and the claim starts over.
 */
export async function claimRecordAsync<Row>(
  insert: () => Promise<Row | undefined>,
  find: () => Promise<Row | undefined>,
): Promise<{ record: Row; created: boolean }> {
  for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
    const inserted = await insert();
    if (inserted) return { record: inserted, created: true };
    const existing = await find();
    if (existing) return { record: existing, created: false };
  }
  throw new Error("settlement record released during every claim attempt");
}

type SettlementTable = typeof eoaSettlements | typeof x402Settlements | typeof swapSettlements;

/**
 * The journal of createSettlementJournal (settlement-journal.ts), each state change one statement, on PostgreSQL.
 * Every commit is durable when it answers (synchronous_commit on, the server's default), and the server groups
 * concurrent commits into one flush itself, so `journalSent` needs no group of its own; the lazy writes of the
 * SQLite journal are ordinary commits here (one round trip either way).
 */
export function createSettlementJournalPostgres<Row>(db: PgDb, table: SettlementTable) {
  const t = table as typeof eoaSettlements;
  const now = () => new Date().toISOString();
  const sent = (txHash: string, rawTx: string) => {
    const time = now();
    return { status: "sent" as const, txHash, rawTx, sentAt: time, updatedAt: time };
  };
  return {
    async release(id: number, evenIfFailed = false) {
      const releasable: ("pending" | "failed")[] = evenIfFailed ? ["pending", "failed"] : ["pending"];
      await db.delete(t).where(and(eq(t.id, id), inArray(t.status, releasable)));
    },
    async markSent(id: number, txHash: string, rawTx: string) {
      await db.update(t).set(sent(txHash, rawTx)).where(eq(t.id, id));
    },
    async journalSent(id: number, txHash: string, rawTx: string) {
      const written = await db
        .update(t)
        .set(sent(txHash, rawTx))
        .where(and(eq(t.id, id), eq(t.status, "pending")))
        .returning({ id: t.id });
      if (written.length !== 1) throw new RecordNotPendingError(id);
    },
    async markReplaced(id: number, txHash: string) {
      await db.update(t).set({ txHash, updatedAt: now() }).where(eq(t.id, id));
    },
    async markOutcome(id: number, outcome: SettlementOutcome) {
      await db
        .update(t)
        .set({
          status: outcome.status,
          // An outcome without a hash keeps the stored one.
          txHash: sql`coalesce(${outcome.txHash || null}, ${t.txHash})`,
          blockNumber: outcome.blockNumber ?? null,
          error: outcome.error ?? null,
          ...figureColumns(outcome),
          updatedAt: now(),
        })
        .where(eq(t.id, id));
    },
    async unfinished() {
      return (await db
        .select()
        .from(t)
        .where(inArray(t.status, ["pending", "sent"]))
        .orderBy(t.id)) as Row[];
    },
  };
}

type PayerNonceKey = { network: string; payer: string; nonce: string };

/**
 * A settlement store keyed by (network, payer, nonce) on PostgreSQL (the EOA payments and EOA swaps): find by the
 * key, the claim one `INSERT … ON CONFLICT DO NOTHING RETURNING` on it (claimRecordAsync), and the shared journal.
 * Payer and nonce are stored lower-cased, as the SQLite stores do.
 */
export function createPayerNonceStorePostgres<Row, New extends PayerNonceKey>(
  db: PgDb,
  table: typeof eoaSettlements | typeof swapSettlements,
): AsyncSettlementStoreOf<Row, New, PayerNonceKey> {
  const t = table as typeof eoaSettlements;
  const keyOf = (key: PayerNonceKey) => ({
    network: key.network,
    payer: key.payer.toLowerCase(),
    nonce: key.nonce.toLowerCase(),
  });
  const find = (key: PayerNonceKey): Promise<Awaited<Row> | undefined> => {
    const { network, payer, nonce } = keyOf(key);
    return db
      .select()
      .from(t)
      .where(and(eq(t.network, network), eq(t.payer, payer), eq(t.nonce, nonce)))
      .then(([row]) => row as Awaited<Row> | undefined);
  };
  return {
    find,
    claim: (settlement) =>
      claimRecordAsync(
        async () => {
          const time = new Date().toISOString();
          const [row] = await db
            .insert(t)
            .values({
              ...(settlement as unknown as typeof t.$inferInsert),
              ...keyOf(settlement),
              status: "pending",
              createdAt: time,
              updatedAt: time,
            })
            .onConflictDoNothing({ target: [t.network, t.payer, t.nonce] })
            .returning();
          return row as Awaited<Row> | undefined;
        },
        () => find(settlement),
      ),
    ...createSettlementJournalPostgres<Row>(db, table),
  };
}
