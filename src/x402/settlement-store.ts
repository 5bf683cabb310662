import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/open";
import { type X402Settlement, x402Settlements } from "../db/schema";
import { createClaimStore } from "../settlement/claim-store";
import { groupCommit } from "../settlement/settlement-journal";
import { createPaymentIdentifierStore } from "./payment-identifier-store";

export type X402SettlementKey = { network: string; contract: string; payer: string; nonce: string };
export type NewX402Settlement = X402SettlementKey &
  Pick<X402Settlement, "recipient" | "amount" | "validAfter" | "validBefore" | "signature" | "paymentId"> & {
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
 * x402 settlements in SQLite, one per (network, contract, payer, nonce); each state change is one statement. The
 * payment identifiers bound to them (x402's payment-identifier) are kept beside them.
 */
export function createX402SettlementStore(db: Db) {
  const now = () => new Date().toISOString();
  const t = x402Settlements;
  const store = createClaimStore<X402Settlement, NewX402Settlement, X402SettlementKey>(db, t, {
    key: ["network", "contract", "payer", "nonce"],
    keyOf,
    valuesOf: (settlement) => ({
      ...keyOf(settlement),
      recipient: settlement.recipient.toLowerCase(),
      token: (settlement.token ?? settlement.contract).toLowerCase(),
      amount: settlement.amount,
      validAfter: settlement.validAfter,
      validBefore: settlement.validBefore,
      signature: settlement.signature,
      paymentId: settlement.paymentId,
    }),
    defaulted: ["successAnswered"],
  });
  const takeAnswer = db
    .update(t)
    .set({ successAnswered: true, updatedAt: sql`${p("time")}` })
    .where(and(eq(t.id, p("id")), eq(t.status, "success"), eq(t.successAnswered, false)))
    .returning({ id: t.id })
    .prepare();

  const commit = groupCommit(db);
  return {
    ...store,
    ...createPaymentIdentifierStore(db),
    /** Drops a record never sent (or never mined) so that the payment can be settled again. */
    release: (id: number) => store.release(id, true),
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
