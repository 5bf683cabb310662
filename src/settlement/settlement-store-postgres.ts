import type { PgDb } from "../db/postgres/open";
import { eoaSettlements } from "../db/postgres/schema";
import type { EoaSettlement } from "../db/schema";
import { type AsyncSettlementStoreOf, createPayerNonceStorePostgres } from "../settlement/settlement-journal-postgres";
import type { NewSettlement, SettlementKey } from "./settlement-store";

/**
 * The EOA settlement store of settlement-store.ts on PostgreSQL, for several instances on one database: the same
 * port with promises, the same rows (the SQLite row type: the two schemas are one, test/db/postgres-schema.test.ts).
 * The settlement flows take this async port (the SQLite store through asAsync); the service does not select
 * PostgreSQL yet, since its other stores have no adapter (docs/operating.md, "Running several instances").
 */
export type AsyncSettlementStore = AsyncSettlementStoreOf<EoaSettlement, NewSettlement, SettlementKey>;

export function createSettlementStorePostgres(db: PgDb): AsyncSettlementStore {
  return createPayerNonceStorePostgres<EoaSettlement, NewSettlement>(db, eoaSettlements);
}
