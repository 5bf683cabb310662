import { and, eq, inArray, sql } from "drizzle-orm";
import type { MinedFigures } from "../chain/mined-figures";
import { type Db, writeLazily } from "../db/open";
import type { eoaSettlements, swapSettlements, x402Settlements } from "../db/schema";

export type SettlementOutcome = {
  status: "success" | "reverted" | "failed" | "rejected";
  txHash?: string;
  blockNumber?: number;
  error?: string;
  /** Our own transaction's receipt figures, when `txHash` is ours and mined; the columns stay null otherwise. */
  mined?: MinedFigures;
};

/**
 * The columns a claim never writes, what a new record of any settlement kind leaves out: the journal's. The payment
 * id is not one of them: the claim writes the id its settle path computed, so a row is found by it once it exists.
 */
export const JOURNAL_COLUMNS = [
  "id",
  "status",
  "txHash",
  "rawTx",
  "blockNumber",
  "error",
  "createdAt",
  "updatedAt",
  "gasUsed",
  "effectiveGasPrice",
  "sentAt",
  "minedAt",
] as const;
export type JournalColumns = (typeof JOURNAL_COLUMNS)[number];

/** An outcome's figure columns, null where it has none. */
export const figureColumns = (outcome: SettlementOutcome) => ({
  gasUsed: outcome.mined?.gasUsed ?? null,
  effectiveGasPrice: outcome.mined?.effectiveGasPrice ?? null,
  minedAt: outcome.mined?.minedAt ?? null,
});

const p = (name: string) => sql.placeholder(name);

/**
 * The journal write before a broadcast found its record no longer pending: released meanwhile (with several
 * instances, by another one's sweep of a claim it took for abandoned), so the payment may have another owner now.
 * The signed transaction is not broadcast (the durable sender gives its nonce back).
 */
export class RecordNotPendingError extends Error {
  constructor(readonly id: number) {
    super(`settlement record ${id} is no longer pending; its transaction is not sent`);
  }
}

/** Where settlements of one kind are remembered: their key and claim, then the shared journal. */
export type SettlementStoreOf<Row, New, Key> = {
  find(key: Key): Row | undefined;
  /** Inserts a pending record unless one exists for the key; returns the record that owns the key. */
  claim(settlement: New): { record: Row; created: boolean };
  /** Drops a record whose transaction was never sent (or never mined), so the payment can be settled again. */
  release(id: number, evenIfFailed?: boolean): void;
  markSent(id: number, txHash: string, rawTx: string): void;
  /** `markSent` committed together with the other synced writes of this turn of the event loop (groupCommit). */
  journalSent(id: number, txHash: string, rawTx: string): Promise<void>;
  markReplaced(id: number, txHash: string): void;
  markOutcome(id: number, outcome: SettlementOutcome): void;
  unfinished(): Row[];
};

/**
 * Inserts a pending record unless its key has one (`insert` answers nothing then) and returns the record that
 * owns the key; `created` says whether this caller owns the settlement. Lazily written: lost in a machine crash
 * before anything was signed, it is simply not there.
 */
export function claimRecord<Row>(
  db: Db,
  insert: () => Row | undefined,
  find: () => Row | undefined,
): { record: Row; created: boolean } {
  const inserted = writeLazily(db, insert);
  if (inserted) return { record: inserted, created: true };
  const existing = find();
  if (!existing) throw new Error("settlement record vanished during claim");
  return { record: existing, created: false };
}

type Queued = { write: () => unknown; resolve(value: unknown): void; reject(error: unknown): void };
const groups = new WeakMap<Db, <T>(write: () => T) => Promise<T>>();

/**
 * Synced writes of one database that arrive in the same turn of the event loop share one transaction: one commit,
 * one fsync. Each caller is answered once that commit is on disk, as after a synced write of its own, so a write
 * that must precede a broadcast or an answer still does. At concurrency 200 every settle's journal write (and
 * x402's success answer) was a sync of its own, run one after another on the event loop: seconds per burst.
 * If the shared transaction fails, each write is retried alone, so one bad write fails only its own caller.
 */
export function groupCommit(db: Db): <T>(write: () => T) => Promise<T> {
  const known = groups.get(db);
  if (known) return known;
  let queue: Queued[] = [];
  const flush = () => {
    const batch = queue;
    queue = [];
    let results: unknown[];
    try {
      results = db.$client.transaction(() => batch.map((item) => item.write()))();
    } catch {
      for (const item of batch) {
        try {
          item.resolve(db.$client.transaction(item.write)());
        } catch (error) {
          item.reject(error);
        }
      }
      return;
    }
    for (const [index, item] of batch.entries()) item.resolve(results[index]);
  };
  const commit = <T>(write: () => T) =>
    new Promise<T>((resolve, reject) => {
      queue.push({ write, resolve: resolve as (value: unknown) => void, reject });
      if (queue.length === 1) setImmediate(flush);
    });
  groups.set(db, commit);
  return commit;
}

/**
 * The state changes every settlement record goes through after its claim (the EOA, x402 and swap tables have
 * the same journal columns): each one statement, prepared once. The journal writes are synced before the broadcast
 * they precede; the others are lazy, because the chain tells what a lost one would have said.
 */
export function createSettlementJournal<Row>(
  db: Db,
  table: typeof eoaSettlements | typeof x402Settlements | typeof swapSettlements,
) {
  const t = table as typeof eoaSettlements;
  const now = () => new Date().toISOString();
  const commit = groupCommit(db);
  const deletePending = db
    .delete(t)
    .where(and(eq(t.id, p("id")), eq(t.status, "pending")))
    .prepare();
  const deletePendingOrFailed = db
    .delete(t)
    .where(and(eq(t.id, p("id")), inArray(t.status, ["pending", "failed"])))
    .prepare();
  const sent = {
    status: "sent" as const,
    txHash: sql`${p("txHash")}`,
    rawTx: sql`${p("rawTx")}`,
    sentAt: sql`${p("time")}`,
    updatedAt: sql`${p("time")}`,
  };
  const setSent = db
    .update(t)
    .set(sent)
    .where(eq(t.id, p("id")))
    .prepare();
  const setSentIfPending = db
    .update(t)
    .set(sent)
    .where(and(eq(t.id, p("id")), eq(t.status, "pending")))
    .returning({ id: t.id })
    .prepare();
  const setTxHash = db
    .update(t)
    .set({ txHash: sql`${p("txHash")}`, updatedAt: sql`${p("time")}` })
    .where(eq(t.id, p("id")))
    .prepare();
  const setOutcome = db
    .update(t)
    .set({
      status: sql`${p("status")}`,
      // An outcome without a hash keeps the stored one.
      txHash: sql`coalesce(${p("txHash")}, ${t.txHash})`,
      blockNumber: sql`${p("blockNumber")}`,
      error: sql`${p("error")}`,
      gasUsed: sql`${p("gasUsed")}`,
      effectiveGasPrice: sql`${p("effectiveGasPrice")}`,
      minedAt: sql`${p("minedAt")}`,
      updatedAt: sql`${p("time")}`,
    })
    .where(eq(t.id, p("id")))
    .prepare();
  const selectUnfinished = db
    .select()
    .from(t)
    .where(inArray(t.status, ["pending", "sent"]))
    .prepare();

  return {
    /** Drops a record whose transaction was never sent (or never mined), so the payment can be settled again. */
    release(id: number, evenIfFailed = false) {
      writeLazily(db, () => (evenIfFailed ? deletePendingOrFailed : deletePending).run({ id }));
    },
    /** The journal: synced before the broadcast it precedes. */
    markSent(id: number, txHash: string, rawTx: string) {
      setSent.run({ id, txHash, rawTx, time: now() });
    },
    async journalSent(id: number, txHash: string, rawTx: string) {
      const written = await commit(() => setSentIfPending.all({ id, txHash, rawTx, time: now() }));
      if (written.length !== 1) throw new RecordNotPendingError(id);
    },
    markReplaced(id: number, txHash: string) {
      setTxHash.run({ id, txHash, time: now() });
    },
    /** Lazily: lost in a machine crash, the record is still "sent" and is resumed from the chain at start. */
    markOutcome(id: number, outcome: SettlementOutcome) {
      writeLazily(db, () =>
        setOutcome.run({
          id,
          status: outcome.status,
          txHash: outcome.txHash || null,
          blockNumber: outcome.blockNumber ?? null,
          error: outcome.error ?? null,
          ...figureColumns(outcome),
          time: now(),
        }),
      );
    },
    /** Records a previous process left before their outcome (reconciled at start). */
    unfinished: () => selectUnfinished.all() as Row[],
  };
}
