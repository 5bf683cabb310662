import type { Db } from "../db/open";
import type { PgDb } from "../db/postgres/open";
import type { FlowStore } from "../flow";
import {
  type Dialect,
  POSTGRES_DIALECT,
  type RowFilter,
  rowOf,
  rowsQuery,
  type SettlementRow,
  SQLITE_DIALECT,
} from "./records";

/** A key lease as the dashboard shows it: which instance holds an executor key, until when (unix ms). */
export type LeaseRow = { network: string; address: string; holder: string; expiresAt: number };

/** A payer or owner with reverts counted against it (src/deny), and the reason of the last one. */
export type DenyRow = {
  network: string;
  kind: string;
  address: string;
  reverts: number;
  lastRevertAt: number;
  lastReason: string;
};

/**
 * What the dashboard reads from the database: every figure comes from here, so every instance on one PostgreSQL
 * shows the same. Read only: the dashboard never writes.
 */
export type DashboardStore = {
  /** The rows a filter selects, newest first, at most `limit`; without a limit every row of the filter's range. */
  rows(filter: RowFilter, limit?: number): Promise<SettlementRow[]>;
  leases(): Promise<LeaseRow[]>;
  /** Deny counters whose last revert is at or after `since` (unix seconds), most reverts first, at most `limit`. */
  denied(since: number, limit: number): Promise<DenyRow[]>;
  /** The text of the query `rows` runs, with its parameters: what the plan tests EXPLAIN. */
  rowsQuery(filter: RowFilter, limit?: number): { text: string; params: unknown[] };
};

const LEASES = "SELECT network, address, holder, expires_at FROM key_leases ORDER BY network, address";
const DENIED =
  "SELECT network, kind, address, reverts, last_revert_at, last_reason FROM deny_counters WHERE last_revert_at >= ? " +
  "ORDER BY reverts DESC, last_revert_at DESC LIMIT ?";

const leaseOf = (raw: Record<string, unknown>): LeaseRow => ({
  network: String(raw.network),
  address: String(raw.address),
  holder: String(raw.holder),
  expiresAt: Number(raw.expires_at),
});

const denyOf = (raw: Record<string, unknown>): DenyRow => ({
  network: String(raw.network),
  kind: String(raw.kind),
  address: String(raw.address),
  reverts: Number(raw.reverts),
  lastRevertAt: Number(raw.last_revert_at),
  lastReason: String(raw.last_reason),
});

/** `?` placeholders as PostgreSQL's `$1, $2, …` (no query text here holds a literal `?`). */
const numbered = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

function storeOver(
  dialect: Dialect,
  run: (text: string, params: unknown[]) => Promise<Record<string, unknown>[]>,
  placeholders: (text: string) => string = (text) => text,
) {
  return {
    async rows(filter: RowFilter, limit?: number) {
      const query = rowsQuery(dialect, filter, limit);
      return (await run(query.text, query.params)).map(rowOf);
    },
    leases: async () => (await run(LEASES, [])).map(leaseOf),
    denied: async (since: number, limit: number) => (await run(DENIED, [since, limit])).map(denyOf),
    rowsQuery: (filter: RowFilter, limit?: number) => {
      const query = rowsQuery(dialect, filter, limit);
      return { text: placeholders(query.text), params: query.params };
    },
  } satisfies DashboardStore;
}

export const dashboardStore: FlowStore<DashboardStore> = {
  sqlite: (db: Db) =>
    storeOver(
      SQLITE_DIALECT,
      async (text, params) => db.$client.query(text).all(...(params as string[])) as Record<string, unknown>[],
    ),
  postgres: (db: PgDb) =>
    storeOver(
      POSTGRES_DIALECT,
      async (text, params) => (await db.$client.unsafe(numbered(text), params)) as Record<string, unknown>[],
      numbered,
    ),
};
