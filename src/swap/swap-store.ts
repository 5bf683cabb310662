import { swapAuthorizationHash } from "@relay402/client/wire/swap/typed-data";
import type { Hex } from "viem";
import type { Db } from "../db/open";
import { type SwapSettlement, swapSettlements } from "../db/schema";
import { createClaimStore } from "../settlement/claim-store";
import type { JournalColumns, SettlementStoreOf } from "../settlement/settlement-journal";
import type { SwapAuthorization } from "./swap-authorization";

export type NewSwapSettlement = Omit<SwapSettlement, JournalColumns>;
export type SwapSettlementKey = { network: string; payer: string; nonce: string };

/** Where EOA swaps being settled are remembered: the key and the claim; the journal is the shared one. */
export type SwapSettlementStore = SettlementStoreOf<SwapSettlement, NewSwapSettlement, SwapSettlementKey>;

/** The record of a swap authorization about to be settled on `network` (addresses lower-cased), under its payment id. */
export function swapSettlementOf(
  network: string,
  auth: SwapAuthorization,
  signature: string,
  paymentId: Hex,
): NewSwapSettlement {
  return {
    network,
    paymentId,
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

/** EOA swaps in SQLite, one per (network, payer, nonce). */
export const createSwapSettlementStore = (db: Db): SwapSettlementStore =>
  createClaimStore(db, swapSettlements, { key: ["network", "payer", "nonce"], keyOf });
