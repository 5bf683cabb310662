import {
  type Dialect,
  POSTGRES_DIALECT,
  type RowFilter,
  rowOf,
  rowsQuery,
  type SettlementRow,
  SQLITE_DIALECT,
} from "../dashboard/records";
import type { Db } from "../db/open";
import { type PlainSql, postgresPlainSql, sqlitePlainSql } from "../db/plain-sql";
import type { PgDb } from "../db/postgres/open";
import type { FlowStore } from "../flow";
import { fillStatement, type ID_SOURCES, type UnfilledRow, unfilledQuery } from "./payment-ids";

/**
 * What the payment lookup reads: the dashboard's rows (src/dashboard/records.ts, the same SQL), so the lookup and
 * the dashboard never disagree; and the journal rows from before the claim wrote their payment id, which the
 * start's backfill fills.
 */
export type LookupStore = {
  rows(filter: RowFilter, limit: number): Promise<SettlementRow[]>;
  unfilled(source: (typeof ID_SOURCES)[number], networks: readonly string[]): Promise<UnfilledRow[]>;
  /** Writes the ids in one transaction; a row another instance filled meanwhile is left as it is (the same id). */
  fill(table: string, ids: readonly { id: number; paymentId: string }[]): Promise<void>;
};

const unfilledOf = (raw: Record<string, unknown>): UnfilledRow => ({
  id: Number(raw.id),
  network: String(raw.network),
  payer: String(raw.payer),
  nonce: String(raw.nonce),
  ...(raw.contract != null && { contract: String(raw.contract) }),
});

function storeOver(dialect: Dialect, { run, atomically }: PlainSql): LookupStore {
  return {
    async rows(filter, limit) {
      const query = rowsQuery(dialect, filter, limit);
      return (await run(query.text, query.params)).map(rowOf);
    },
    async unfilled(source, networks) {
      if (networks.length === 0) return [];
      const query = unfilledQuery(source, networks);
      return (await run(query.text, query.params)).map(unfilledOf);
    },
    fill: (table, ids) =>
      atomically(ids.map(({ id, paymentId }) => ({ text: fillStatement(table), params: [paymentId, id] }))),
  };
}

export const lookupStore: FlowStore<LookupStore> = {
  sqlite: (db: Db) => storeOver(SQLITE_DIALECT, sqlitePlainSql(db)),
  // Plain SQL on the driver's client: nothing of PostgreSQL's to load.
  postgres: async () => (db: PgDb) => storeOver(POSTGRES_DIALECT, postgresPlainSql(db)),
};
