import { and, eq } from "drizzle-orm";
import type { Async } from "../db/async-port";
import type { PgDb } from "../db/postgres/open";
import { swapSettlements } from "../db/postgres/schema";
import type { SwapSettlement } from "../db/schema";
import { claimRecordAsync, createSettlementJournalPostgres } from "../payments/settlement-journal-postgres";
import type { SwapSettlementKey, SwapSettlementStore } from "./swap-store";

/** The EOA swap settlement store on PostgreSQL: the port of swap-store.ts with promises, the same rows. */
export type AsyncSwapSettlementStore = Async<SwapSettlementStore>;

const keyOf = (key: SwapSettlementKey) => ({
  network: key.network,
  payer: key.payer.toLowerCase(),
  nonce: key.nonce.toLowerCase(),
});

/**
 * EOA swaps being settled, on PostgreSQL, one per (network, payer, nonce): the claim one `INSERT … ON CONFLICT DO
 * NOTHING RETURNING` on the unique key (claimRecordAsync), the journal the shared one.
 */
export function createSwapSettlementStorePostgres(db: PgDb): AsyncSwapSettlementStore {
  const t = swapSettlements;
  const find = async (key: SwapSettlementKey) => {
    const { network, payer, nonce } = keyOf(key);
    const [row] = await db
      .select()
      .from(t)
      .where(and(eq(t.network, network), eq(t.payer, payer), eq(t.nonce, nonce)));
    return row as SwapSettlement | undefined;
  };
  return {
    find,
    claim: (settlement) =>
      claimRecordAsync(
        async () => {
          const time = new Date().toISOString();
          const [row] = await db
            .insert(t)
            .values({ ...settlement, ...keyOf(settlement), status: "pending", createdAt: time, updatedAt: time })
            .onConflictDoNothing({ target: [t.network, t.payer, t.nonce] })
            .returning();
          return row as SwapSettlement | undefined;
        },
        () => find(settlement),
      ),
    ...createSettlementJournalPostgres<SwapSettlement>(db, t),
  };
}
