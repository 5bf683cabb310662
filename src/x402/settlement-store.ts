import { and, eq, inArray, sql } from "drizzle-orm";
import { type Db, writeLazily } from "../db/open";
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

const p = (name: string) => sql.placeholder(name);

/**
 * x402 settlements in SQLite, one per (network, contract, payer, nonce). Every statement is prepared once (building
 * SQL on every call was most of a settle's CPU), and each state change is one statement.
 */
export function createX402SettlementStore(db: Db) {
  const now = () => new Date().toISOString();
  const t = x402Settlements;
  const findByKey = db
    .select()
    .from(t)
    .where(
      and(eq(t.network, p("network")), eq(t.contract, p("contract")), eq(t.payer, p("payer")), eq(t.nonce, p("nonce"))),
    )
    .prepare();
  const insertPending = db
    .insert(t)
    .values({
      network: p("network"),
      contract: p("contract"),
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
  const deleteUnsent = db
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
  const takeAnswer = db
    .update(t)
    .set({ successAnswered: true, updatedAt: sql`${p("time")}` })
    .where(and(eq(t.id, p("id")), eq(t.status, "success"), eq(t.successAnswered, false)))
    .returning({ id: t.id })
    .prepare();

  const find = (key: X402SettlementKey) => findByKey.get(keyOf(key));
  return {
    find,
    /** Inserts a pending record unless the key has one; `created` says whether this caller owns the settlement. */
    claim(settlement: NewX402Settlement): { record: X402Settlement; created: boolean } {
      // Lazily: lost in a machine crash before anything was signed, it is simply not there.
      const inserted = writeLazily(db, () =>
        insertPending.get({
          ...keyOf(settlement),
          recipient: settlement.recipient.toLowerCase(),
          token: (settlement.token ?? settlement.contract).toLowerCase(),
          amount: settlement.amount,
          validAfter: settlement.validAfter,
          validBefore: settlement.validBefore,
          signature: settlement.signature,
          time: now(),
        }),
      );
      if (inserted) return { record: inserted, created: true };
      const existing = find(settlement);
      if (!existing) throw new Error("x402 settlement record vanished during claim");
      return { record: existing, created: false };
    },
    /** Drops a record never sent (or never mined) so that the payment can be settled again. */
    release(id: number) {
      writeLazily(db, () => deleteUnsent.run({ id }));
    },
    /** The journal: synced before the broadcast it precedes. */
    markSent: (id: number, txHash: string, rawTx: string) => {
      setSent.run({ id, txHash, rawTx, time: now() });
    },
    markReplaced: (id: number, txHash: string) => {
      setTxHash.run({ id, txHash, time: now() });
    },
    /** Lazily: lost in a machine crash, the record is still "sent" and is resumed from the chain at start. */
    markOutcome: (id: number, outcome: Outcome) => {
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
    /** Records a previous process left before their outcome (reconciled at start). */
    unfinished: () => selectUnfinished.all(),
    /**
     * True for exactly one caller per settled payment: the one whose answer may say success. Synced (with the
     * outcome before it) before that answer leaves: lost, a retry after a machine crash could be told success again.
     */
    takeSuccessAnswer(id: number): boolean {
      return takeAnswer.all({ id, time: now() }).length === 1;
    },
  };
}

export type X402SettlementStore = ReturnType<typeof createX402SettlementStore>;
