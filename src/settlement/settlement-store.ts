import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/open";
import { type EoaSettlement, eoaSettlements } from "../db/schema";
import type { Authorization } from "./authorization";
import {
  claimRecord,
  createSettlementJournal,
  type JournalColumns,
  type SettlementStoreOf,
} from "./settlement-journal";

export type NewSettlement = Omit<EoaSettlement, JournalColumns>;
export type SettlementKey = { network: string; payer: string; nonce: string };

/** Where EOA settlements are remembered; SQLite here, any store with a unique key would do. */
export type SettlementStore = SettlementStoreOf<EoaSettlement, NewSettlement, SettlementKey>;

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
  const find = (key: SettlementKey) => findByKey.get(keyOf(key));
  return {
    find,
    claim: (settlement) =>
      claimRecord(
        db,
        () => insertPending.get({ ...settlement, ...keyOf(settlement), time: now() }),
        () => find(settlement),
      ),
    ...createSettlementJournal<EoaSettlement>(db, t),
  };
}
