import { and, eq } from "drizzle-orm";
import type { PgDb } from "../db/postgres/open";
import { eoaSettlements } from "../db/postgres/schema";
import type { EoaSettlement } from "../db/schema";
import {
  type AsyncSettlementStoreOf,
  claimRecordAsync,
  createSettlementJournalPostgres,
} from "./settlement-journal-postgres";
import type { NewSettlement, SettlementKey } from "./settlement-store";

/**
 * The EOA settlement store of settlement-store.ts on PostgreSQL, for several instances on one database: the same
 * port with promises, the same rows (the SQLite row type: the two schemas are one, test/db/postgres-schema.test.ts).
 * The settlement flows take this async port (the SQLite store through asAsync); the service does not select
 * PostgreSQL yet, since its other stores have no adapter (README, "Several instances (in progress)").
 */
export type AsyncSettlementStore = AsyncSettlementStoreOf<EoaSettlement, NewSettlement, SettlementKey>;

const keyOf = (key: SettlementKey) => ({
  network: key.network,
  payer: key.payer.toLowerCase(),
  nonce: key.nonce.toLowerCase(),
});

export function createSettlementStorePostgres(db: PgDb): AsyncSettlementStore {
  const t = eoaSettlements;
  const find = async (key: SettlementKey) => {
    const { network, payer, nonce } = keyOf(key);
    const [row] = await db
      .select()
      .from(t)
      .where(and(eq(t.network, network), eq(t.payer, payer), eq(t.nonce, nonce)));
    return row;
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
          return row;
        },
        () => find(settlement),
      ),
    ...createSettlementJournalPostgres<EoaSettlement>(db, t),
  };
}
