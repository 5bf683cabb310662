import type { Async } from "../db/async-port";
import type { PgDb } from "../db/postgres/open";
import { swapSettlements } from "../db/postgres/schema";
import type { SwapSettlement } from "../db/schema";
import { createPayerNonceStorePostgres } from "../settlement/settlement-journal-postgres";
import type { NewSwapSettlement, SwapSettlementStore } from "./swap-store";

/** The EOA swap settlement store on PostgreSQL: the port of swap-store.ts with promises, the same rows. */
export type AsyncSwapSettlementStore = Async<SwapSettlementStore>;

/** EOA swaps being settled, on PostgreSQL, one per (network, payer, nonce). */
export function createSwapSettlementStorePostgres(db: PgDb): AsyncSwapSettlementStore {
  return createPayerNonceStorePostgres<SwapSettlement, NewSwapSettlement>(db, swapSettlements);
}
