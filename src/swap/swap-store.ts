import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/open";
import { type SwapSettlement, swapSettlements } from "../db/schema";
import {
  claimRecord,
  createSettlementJournal,
  type JournalColumns,
  type SettlementStoreOf,
} from "../settlement/settlement-journal";
import type { SwapAuthorization } from "./swap-authorization";
import { swapAuthorizationHash } from "./typed-data";

export type NewSwapSettlement = Omit<SwapSettlement, JournalColumns>;
export type SwapSettlementKey = { network: string; payer: string; nonce: string };

/** Where EOA swaps being settled are remembered: the key and the claim; the journal is the shared one. */
export type SwapSettlementStore = SettlementStoreOf<SwapSettlement, NewSwapSettlement, SwapSettlementKey>;

/** The record of a swap authorization about to be settled on `network` (addresses lower-cased). */
export function swapSettlementOf(network: string, auth: SwapAuthorization, signature: string): NewSwapSettlement {
  return {
    network,
    payer: auth.from.toLowerCase(),
    nonce: auth.nonce.toLowerCase(),
    sellToken: auth.sellToken.toLowerCase(),
    buyToken: auth.buyToken.toLowerCase(),
    sellAmount: auth.sellAmount.toString(),
    minBuyAmount: auth.minBuyAmount.toString(),
    recipient: auth.recipient.toLowerCase(),
    fee: auth.fee.toString(),
    validAfter: Number(auth.validAfter),
    validBefore: Number(auth.validBefore),
    signature,
    authorizationHash: swapAuthorizationHash(auth),
  };
}

const keyOf = (key: SwapSettlementKey) => ({
  network: key.network,
  payer: key.payer.toLowerCase(),
  nonce: key.nonce.toLowerCase(),
});
const p = (name: string) => sql.placeholder(name);

export function createSwapSettlementStore(db: Db): SwapSettlementStore {
  const now = () => new Date().toISOString();
  const t = swapSettlements;
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
      sellToken: p("sellToken"),
      buyToken: p("buyToken"),
      sellAmount: p("sellAmount"),
      minBuyAmount: p("minBuyAmount"),
      recipient: p("recipient"),
      fee: p("fee"),
      validAfter: p("validAfter"),
      validBefore: p("validBefore"),
      signature: p("signature"),
      authorizationHash: p("authorizationHash"),
      status: "pending",
      createdAt: p("time"),
      updatedAt: p("time"),
    })
    .onConflictDoNothing()
    .returning()
    .prepare();
  const find = (key: SwapSettlementKey) => findByKey.get(keyOf(key));
  return {
    find,
    claim: (settlement) =>
      claimRecord(
        db,
        () => insertPending.get({ ...settlement, ...keyOf(settlement), time: now() }),
        () => find(settlement),
      ),
    ...createSettlementJournal<SwapSettlement>(db, t),
  };
}
