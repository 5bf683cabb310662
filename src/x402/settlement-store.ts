import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/open";
import { type X402Settlement, x402Settlements } from "../db/schema";
import { claimRecord, createSettlementJournal, groupCommit } from "../settlement/settlement-journal";

export type X402SettlementKey = { network: string; contract: string; payer: string; nonce: string };
export type NewX402Settlement = X402SettlementKey &
  Pick<X402Settlement, "recipient" | "amount" | "validAfter" | "validBefore" | "signature"> & {
    /** The token moved; defaults to `contract` (EIP-3009, where the token is the nonce space). */
    token?: string;
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
  const takeAnswer = db
    .update(t)
    .set({ successAnswered: true, updatedAt: sql`${p("time")}` })
    .where(and(eq(t.id, p("id")), eq(t.status, "success"), eq(t.successAnswered, false)))
    .returning({ id: t.id })
    .prepare();

  const journal = createSettlementJournal<X402Settlement>(db, t);
  const commit = groupCommit(db);
  const find = (key: X402SettlementKey) => findByKey.get(keyOf(key));
  return {
    find,
    /** Inserts a pending record unless the key has one; `created` says whether this caller owns the settlement. */
    claim: (settlement: NewX402Settlement): { record: X402Settlement; created: boolean } =>
      claimRecord(
        db,
        () =>
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
        () => find(settlement),
      ),
    ...journal,
    /** Drops a record never sent (or never mined) so that the payment can be settled again. */
    release: (id: number) => journal.release(id, true),
    /**
     * True for exactly one caller per settled payment: the one whose answer may say success. Synced (with the
     * outcome before it) before that answer leaves: lost, a retry after a machine crash could be told success again.
     * Committed with the other synced writes of the same moment (groupCommit): one fsync for a burst of answers.
     */
    takeSuccessAnswer(id: number): Promise<boolean> {
      return commit(() => takeAnswer.all({ id, time: now() }).length === 1);
    },
  };
}

export type X402SettlementStore = ReturnType<typeof createX402SettlementStore>;
