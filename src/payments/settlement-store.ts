import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../db/open";
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

export function createSettlementStore(db: Db): SettlementStore {
  const now = () => new Date().toISOString();
  const find = (key: SettlementKey) => {
    const k = keyOf(key);
    return db
      .select()
      .from(eoaSettlements)
      .where(
        and(
          eq(eoaSettlements.network, k.network),
          eq(eoaSettlements.payer, k.payer),
          eq(eoaSettlements.nonce, k.nonce),
        ),
      )
      .get();
  };
  return {
    find,
    claim(settlement) {
      const time = now();
      const inserted = db
        .insert(eoaSettlements)
        .values({ ...settlement, ...keyOf(settlement), status: "pending", createdAt: time, updatedAt: time })
        .onConflictDoNothing()
        .returning()
        .get();
      if (inserted) return { record: inserted, created: true };
      const existing = find(settlement);
      if (!existing) throw new Error("settlement record vanished during claim");
      return { record: existing, created: false };
    },
    release(id, evenIfFailed = false) {
      const statuses: EoaSettlement["status"][] = evenIfFailed ? ["pending", "failed"] : ["pending"];
      db.delete(eoaSettlements)
        .where(and(eq(eoaSettlements.id, id), inArray(eoaSettlements.status, statuses)))
        .run();
    },
    markSent(id, txHash, rawTx) {
      db.update(eoaSettlements)
        .set({ status: "sent", txHash, rawTx, updatedAt: now() })
        .where(eq(eoaSettlements.id, id))
        .run();
    },
    markReplaced(id, txHash) {
      db.update(eoaSettlements).set({ txHash, updatedAt: now() }).where(eq(eoaSettlements.id, id)).run();
    },
    markOutcome(id, outcome) {
      db.update(eoaSettlements)
        .set({
          status: outcome.status,
          ...(outcome.txHash ? { txHash: outcome.txHash } : {}),
          blockNumber: outcome.blockNumber ?? null,
          error: outcome.error ?? null,
          updatedAt: now(),
        })
        .where(eq(eoaSettlements.id, id))
        .run();
    },
    unfinished: () =>
      db
        .select()
        .from(eoaSettlements)
        .where(inArray(eoaSettlements.status, ["pending", "sent"]))
        .all(),
  };
}
