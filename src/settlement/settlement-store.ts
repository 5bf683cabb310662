import type { Hex } from "viem";
import type { Db } from "../db/open";
import { type EoaSettlement, eoaSettlements } from "../db/schema";
import type { Authorization } from "./authorization";
import { createClaimStore } from "./claim-store";
import type { JournalColumns, SettlementStoreOf } from "./settlement-journal";

export type NewSettlement = Omit<EoaSettlement, JournalColumns>;
export type SettlementKey = { network: string; payer: string; nonce: string };

/** Where EOA settlements are remembered; SQLite here, any store with a unique key would do. */
export type SettlementStore = SettlementStoreOf<EoaSettlement, NewSettlement, SettlementKey>;

/** The record of an authorization about to be settled on `network`, under the payment id its settle computed. */
export function settlementOf(network: string, authorization: Authorization, paymentId: Hex): NewSettlement {
  return {
    network,
    paymentId,
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

/** EOA settlements in SQLite, one per (network, payer, nonce). */
export const createSettlementStore = (db: Db): SettlementStore =>
  createClaimStore(db, eoaSettlements, { key: ["network", "payer", "nonce"], keyOf });
