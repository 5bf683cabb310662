import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../db/open";
import { type X402Settlement, x402Settlements } from "../db/schema";

export type X402SettlementKey = { network: string; contract: string; payer: string; nonce: string };
export type NewX402Settlement = X402SettlementKey &
  Pick<X402Settlement, "recipient" | "amount" | "validAfter" | "validBefore" | "signature"> & {
    /** The token moved; defaults to `contract` (EIP-3009, where the token is the nonce space). */
    token?: string;
  };
type Outcome = {
  status: "success" | "reverted" | "failed" | "rejected";
  txHash?: string;
  blockNumber?: number;
  error?: string;
};

const keyOf = <K extends X402SettlementKey>(key: K): K => ({
  ...key,
  contract: key.contract.toLowerCase(),
  payer: key.payer.toLowerCase(),
  nonce: key.nonce.toLowerCase(),
});

/** x402 settlements in SQLite, one per (network, contract, payer, nonce). */
export function createX402SettlementStore(db: Db) {
  const now = () => new Date().toISOString();
  const find = (key: X402SettlementKey) => {
    const k = keyOf(key);
    return db
      .select()
      .from(x402Settlements)
      .where(
        and(
          eq(x402Settlements.network, k.network),
          eq(x402Settlements.contract, k.contract),
          eq(x402Settlements.payer, k.payer),
          eq(x402Settlements.nonce, k.nonce),
        ),
      )
      .get();
  };
  const update = (id: number, fields: Partial<X402Settlement>) =>
    db
      .update(x402Settlements)
      .set({ ...fields, updatedAt: now() })
      .where(eq(x402Settlements.id, id))
      .run();
  return {
    find,
    /** Inserts a pending record unless the key has one; `created` says whether this caller owns the settlement. */
    claim(settlement: NewX402Settlement): { record: X402Settlement; created: boolean } {
      const time = now();
      const inserted = db
        .insert(x402Settlements)
        .values({
          ...keyOf(settlement),
          recipient: settlement.recipient.toLowerCase(),
          token: (settlement.token ?? settlement.contract).toLowerCase(),
          status: "pending",
          createdAt: time,
          updatedAt: time,
        })
        .onConflictDoNothing()
        .returning()
        .get();
      if (inserted) return { record: inserted, created: true };
      const existing = find(settlement);
      if (!existing) throw new Error("x402 settlement record vanished during claim");
      return { record: existing, created: false };
    },
    /** Drops a record never sent (or never mined) so that the payment can be settled again. */
    release(id: number) {
      db.delete(x402Settlements)
        .where(and(eq(x402Settlements.id, id), inArray(x402Settlements.status, ["pending", "failed"])))
        .run();
    },
    markSent: (id: number, txHash: string, rawTx: string) => update(id, { status: "sent", txHash, rawTx }),
    markReplaced: (id: number, txHash: string) => update(id, { txHash }),
    markOutcome: (id: number, outcome: Outcome) =>
      update(id, {
        status: outcome.status,
        ...(outcome.txHash ? { txHash: outcome.txHash } : {}),
        blockNumber: outcome.blockNumber ?? null,
        error: outcome.error ?? null,
      }),
    /** Records a previous process left before their outcome (reconciled at start). */
    unfinished: () =>
      db
        .select()
        .from(x402Settlements)
        .where(inArray(x402Settlements.status, ["pending", "sent"]))
        .all(),
    /** True for exactly one caller per settled payment: the one whose answer may say success. */
    takeSuccessAnswer(id: number): boolean {
      const taken = db
        .update(x402Settlements)
        .set({ successAnswered: true, updatedAt: now() })
        .where(
          and(
            eq(x402Settlements.id, id),
            eq(x402Settlements.status, "success"),
            eq(x402Settlements.successAnswered, false),
          ),
        )
        .returning({ id: x402Settlements.id })
        .all();
      return taken.length === 1;
    },
  };
}

export type X402SettlementStore = ReturnType<typeof createX402SettlementStore>;
