import { and, eq, inArray, sql } from "drizzle-orm";
import { type Db, writeLazily } from "../db/open";
import { type EoaSettlement, eoaSettlements } from "../db/schema";
import type { Authorization } from "./authorization";

export type NewSettlement = Omit<
  EoaSettlement,
  "id" | "status" | "txHash" | "rawTx" | "blockNumber" | "error" | "createdAt" | "updatedAt"
>;
export type SettlementKey = { network: string; payer: string; nonce: string };

/** Where EOA settlements are remembered; SQLite here, any store with a unique key would do. */
export type SettlementStore = {
  find(key: SettlementKey): EoaSettlement | undefined;
  /** Inserts a pending record unless one exists for the key; returns the record that owns the key. */
  claim(settlement: NewSettlement): { record: EoaSettlement; created: boolean };
  /** Drops a record whose transaction was never sent (or never mined), so the authorization can be settled again. */
  release(id: number, evenIfFailed?: boolean): void;
  markSent(id: number, txHash: string, rawTx: string): void;
  markReplaced(id: number, txHash: string): void;
  markOutcome(
    id: number,
    outcome: {
      status: "success" | "reverted" | "failed" | "rejected";
      txHash?: string;
      blockNumber?: number;
      error?: string;
    },
  ): void;
  unfinished(): EoaSettlement[];
};

/** The record of an authorization about to be settled on `network`. */
export function settlementOf(network: string, authorization: Authorization): NewSettlement {
  return {
    network,
    payer: authorization.from,
    nonce: authorization.nonce,
    token: authorization.token.toLowerCase(),
    recipient: authorization.to.toLowerCase(),
    amount: authorization.value.toString(),
    validAfter: Number(authorization.validAfter),
    validBefore: Number(authorization.validBefore),
    signature: authorization.signature,
  };
}

const keyOf = (key: SettlementKey) => ({ ...key, payer: key.payer.toLowerCase(), nonce: key.nonce.toLowerCase() });

const p = (name: string) => sql.placeholder(name);

/**
 * Every statement is prepared once (a settle runs four of them: building SQL on every call was most of its CPU),
 * and each state change is one statement.
 */
export function createSettlementStore(db: Db): SettlementStore {
  const now = () => new Date().toISOString();
  const t = eoaSettlements;
  const findByKey = db
    .select()
    .from(t)
    .where(and(eq(t.network, p("network")), eq(t.payer, p("payer")), eq(t.nonce, p("nonce"))))
    .prepare();
  const insertPending = db
    .insert(t)
    .values({
      network: p("network"),
      payer: p("payer"),
      nonce: p("nonce"),
      token: p("token"),
      recipient: p("recipient"),
      amount: p("amount"),
      validAfter: p("validAfter"),
      validBefore: p("validBefore"),
      signature: p("signature"),
      status: "pending",
      createdAt: p("time"),
      updatedAt: p("time"),
    })
    .onConflictDoNothing()
    .returning()
    .prepare();
  const deletePending = db
    .delete(t)
    .where(and(eq(t.id, p("id")), eq(t.status, "pending")))
    .prepare();
  const deletePendingOrFailed = db
    .delete(t)
    .where(and(eq(t.id, p("id")), inArray(t.status, ["pending", "failed"])))
    .prepare();
  const setSent = db
    .update(t)
    .set({ status: "sent", txHash: sql`${p("txHash")}`, rawTx: sql`${p("rawTx")}`, updatedAt: sql`${p("time")}` })
    .where(eq(t.id, p("id")))
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
      updatedAt: sql`${p("time")}`,
    })
    .where(eq(t.id, p("id")))
    .prepare();
  const selectUnfinished = db
    .select()
    .from(t)
    .where(inArray(t.status, ["pending", "sent"]))
    .prepare();

  const find = (key: SettlementKey) => findByKey.get(keyOf(key));
  return {
    find,
    claim(settlement) {
      // Lazily: lost in a machine crash before anything was signed, it is simply not there.
      const inserted = writeLazily(db, () => insertPending.get({ ...settlement, ...keyOf(settlement), time: now() }));
      if (inserted) return { record: inserted, created: true };
      const existing = find(settlement);
      if (!existing) throw new Error("settlement record vanished during claim");
      return { record: existing, created: false };
    },
    release(id, evenIfFailed = false) {
      writeLazily(db, () => (evenIfFailed ? deletePendingOrFailed : deletePending).run({ id }));
    },
    // The journal: synced before the broadcast it precedes.
    markSent(id, txHash, rawTx) {
      setSent.run({ id, txHash, rawTx, time: now() });
    },
    markReplaced(id, txHash) {
      setTxHash.run({ id, txHash, time: now() });
    },
    // Lazily: lost in a machine crash, the record is still "sent" and is resumed from the chain at start.
    markOutcome(id, outcome) {
      writeLazily(db, () =>
        setOutcome.run({
          id,
          status: outcome.status,
          txHash: outcome.txHash || null,
          blockNumber: outcome.blockNumber ?? null,
          error: outcome.error ?? null,
          time: now(),
        }),
      );
    },
    unfinished: () => selectUnfinished.all(),
  };
}
