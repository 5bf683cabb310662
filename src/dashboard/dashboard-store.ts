import type { Db } from "../db/open";
import { type PlainSql, postgresPlainSql, sqlitePlainSql } from "../db/plain-sql";
import type { PgDb } from "../db/postgres/open";
import type { FlowStore } from "../flow";
import type { Group } from "./figures";
import { latencyFromJson, latencyToJson } from "./latency";
import type { FundingRow } from "./onboarding";
import {
  type DashboardFlow,
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
  /** A network's funded approves with a funding, created at or after `since` (the funded_approvals_created index). */
  fundings(network: string, since: string): Promise<FundingRow[]>;
  /** Deny counters whose last revert is at or after `since` (unix seconds), most reverts first, at most `limit`. */
  denied(since: number, limit: number): Promise<DenyRow[]>;
  /** The text of the query `rows` runs, with its parameters: what the plan tests EXPLAIN. */
  rowsQuery(filter: RowFilter, limit?: number): { text: string; params: unknown[] };
  /** The text of the query `fundings` runs, for the plan tests likewise. */
  fundingsQuery(): { text: string; params: unknown[] };
  /** The texts of the rollups' reads (a range's groups, the hours changed since), for the plan tests likewise. */
  rollupQueries(): { rollups: { text: string; params: unknown[] }; changed: { text: string; params: unknown[] } };
  // The hourly rollups (rollups.ts).
  /** The stored groups of the hours in [from, to) (ISO hour starts). */
  rollups(from: string, to: string, filter?: RollupFilter): Promise<Group[]>;
  /** Which hours in [from, to) are stored. */
  storedHours(from: string, to: string): Promise<Set<string>>;
  /** Stores hours' groups in one transaction (an hour already stored by another instance is left as it is). */
  storeHours(hours: readonly { hour: string; groups: readonly Group[] }[], builtAt: string): Promise<void>;
  /** The hours (ISO starts) of the records written since `since`. */
  changedHours(since: string): Promise<string[]>;
  forgetHours(hours: readonly string[]): Promise<void>;
  rollupMark(): Promise<string | null>;
  setRollupMark(at: string): Promise<void>;
};

export type RollupFilter = { network?: string; flow?: DashboardFlow; sources?: readonly SettlementRow["source"][] };

const LEASES = "SELECT network, address, holder, expires_at FROM key_leases ORDER BY network, address";
const DENIED =
  "SELECT network, kind, address, reverts, last_revert_at, last_reason FROM deny_counters WHERE last_revert_at >= ? " +
  "ORDER BY reverts DESC, last_revert_at DESC LIMIT ?";

const FUNDINGS =
  "SELECT network, payer, status, funding_wei, funding_fee_wei, approve_cost_wei, kept_wei, created_at " +
  "FROM funded_approvals WHERE network = ? AND created_at >= ? " +
  "AND funding_wei != '0'";

const fundingOf = (raw: Record<string, unknown>): FundingRow => ({
  network: String(raw.network),
  payer: String(raw.payer),
  status: raw.status as FundingRow["status"],
  fundingWei: String(raw.funding_wei),
  fundingFeeWei: raw.funding_fee_wei == null ? null : String(raw.funding_fee_wei),
  approveCostWei: raw.approve_cost_wei == null ? null : String(raw.approve_cost_wei),
  keptWei: raw.kept_wei == null ? null : String(raw.kept_wei),
  createdAt: String(raw.created_at),
});

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

const SOURCES = ["eoa_settlements", "x402_settlements", "swap_settlements", "issued_user_ops"] as const;

const rollupsQuery = (d: Dialect, from: string, to: string, filter: RollupFilter) => {
  const params: unknown[] = [from, to];
  let where = "hour >= ? AND hour < ?";
  if (filter.network) {
    where += " AND network = ?";
    params.push(filter.network);
  }
  if (filter.flow) {
    where += " AND flow = ?";
    params.push(filter.flow);
  }
  if (filter.sources) {
    where += ` AND source IN (${filter.sources.map(() => "?").join(", ")})`;
    params.push(...filter.sources);
  }
  const sums = ["volume", "fees", "gas_wei", "sponsored_wei"].map((column) => `${d.text(column)} AS ${column}`);
  return {
    text: `SELECT hour, network, flow, source, token, success, failed, ${sums.join(", ")}, gas_known, gas_unknown, sponsored_known, sponsored_unknown, latency FROM dashboard_rollups WHERE ${where}`,
    params,
  };
};

const groupOf = (raw: Record<string, unknown>): Group => ({
  bucket: String(raw.hour),
  network: String(raw.network),
  flow: raw.flow as DashboardFlow,
  source: raw.source as SettlementRow["source"],
  token: String(raw.token),
  success: Number(raw.success),
  failed: Number(raw.failed),
  pending: 0,
  volume: BigInt(String(raw.volume)),
  fees: BigInt(String(raw.fees)),
  gasWei: BigInt(String(raw.gas_wei)),
  gasKnown: Number(raw.gas_known),
  gasUnknown: Number(raw.gas_unknown),
  sponsoredWei: BigInt(String(raw.sponsored_wei)),
  sponsoredKnown: Number(raw.sponsored_known),
  sponsoredUnknown: Number(raw.sponsored_unknown),
  latency: latencyFromJson(String(raw.latency)),
});

/**
 * The statements that store hours: their groups and their marks, each in one multi-row insert, each row left alone
 * if another instance stored it first.
 */
function storeHoursStatements(hours: readonly { hour: string; groups: readonly Group[] }[], builtAt: string) {
  const groups = hours.flatMap(({ hour, groups }) => groups.map((group) => ({ ...group, bucket: hour })));
  const values = (count: number, width: number) =>
    Array.from({ length: count }, () => `(${Array.from({ length: width }, () => "?").join(", ")})`).join(", ");
  const statements: { text: string; params: unknown[] }[] = [];
  // A day's groups at most per statement: far below either database's limit of bound parameters.
  for (let at = 0; at < groups.length; at += 500) {
    const chunk = groups.slice(at, at + 500);
    statements.push({
      text:
        "INSERT INTO dashboard_rollups (hour, network, flow, source, token, success, failed, volume, fees, gas_wei, gas_known, gas_unknown, sponsored_wei, sponsored_known, sponsored_unknown, latency) " +
        `VALUES ${values(chunk.length, 16)} ON CONFLICT DO NOTHING`,
      params: chunk.flatMap((group) => [
        group.bucket,
        group.network,
        group.flow,
        group.source,
        group.token,
        group.success,
        group.failed,
        group.volume.toString(),
        group.fees.toString(),
        group.gasWei.toString(),
        group.gasKnown,
        group.gasUnknown,
        group.sponsoredWei.toString(),
        group.sponsoredKnown,
        group.sponsoredUnknown,
        latencyToJson(group.latency),
      ]),
    });
  }
  if (hours.length > 0)
    statements.push({
      text: `INSERT INTO dashboard_rollup_hours (hour, built_at) VALUES ${values(hours.length, 2)} ON CONFLICT DO NOTHING`,
      params: hours.flatMap(({ hour }) => [hour, builtAt]),
    });
  return statements;
}

/** An hour prefix (`2026-01-01T00`, as `substr(created_at, 1, 13)` cuts it) as the hour's ISO start. */
const hourOf = (prefix: string) => `${prefix}:00:00.000Z`;

const CHANGED = SOURCES.map(
  (source) => `SELECT DISTINCT substr(created_at, 1, 13) AS hour FROM ${source} WHERE updated_at >= ?`,
).join(" UNION ");

const MARK = "SELECT value FROM dashboard_rollup_state WHERE name = 'refreshed_at'";
const SET_MARK =
  "INSERT INTO dashboard_rollup_state (name, value) VALUES ('refreshed_at', ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value";

function storeOver(dialect: Dialect, { run, atomically, placeholders }: PlainSql) {
  return {
    async rows(filter: RowFilter, limit?: number) {
      const query = rowsQuery(dialect, filter, limit);
      return (await run(query.text, query.params)).map(rowOf);
    },
    leases: async () => (await run(LEASES, [])).map(leaseOf),
    fundings: async (network: string, since: string) => (await run(FUNDINGS, [network, since])).map(fundingOf),
    denied: async (since: number, limit: number) => (await run(DENIED, [since, limit])).map(denyOf),
    rowsQuery: (filter: RowFilter, limit?: number) => {
      const query = rowsQuery(dialect, filter, limit);
      return { text: placeholders(query.text), params: query.params };
    },
    fundingsQuery: () => ({ text: placeholders(FUNDINGS), params: ["bsc", new Date().toISOString()] }),
    rollupQueries: () => {
      const at = new Date().toISOString();
      const rollups = rollupsQuery(dialect, at, at, { network: "bsc" });
      return {
        rollups: { text: placeholders(rollups.text), params: rollups.params },
        changed: { text: placeholders(CHANGED), params: SOURCES.map(() => at) },
      };
    },
    async rollups(from: string, to: string, filter: RollupFilter = {}) {
      const query = rollupsQuery(dialect, from, to, filter);
      return (await run(query.text, query.params)).map(groupOf);
    },
    async storedHours(from: string, to: string) {
      const rows = await run("SELECT hour FROM dashboard_rollup_hours WHERE hour >= ? AND hour < ?", [from, to]);
      return new Set(rows.map((row) => String(row.hour)));
    },
    storeHours: (hours: readonly { hour: string; groups: readonly Group[] }[], builtAt: string) =>
      atomically(storeHoursStatements(hours, builtAt)),
    async changedHours(since: string) {
      const rows = await run(
        CHANGED,
        SOURCES.map(() => since),
      );
      return rows.map((row) => hourOf(String(row.hour)));
    },
    async forgetHours(hours: readonly string[]) {
      const list = hours.map(() => "?").join(", ");
      await atomically([
        { text: `DELETE FROM dashboard_rollups WHERE hour IN (${list})`, params: [...hours] },
        { text: `DELETE FROM dashboard_rollup_hours WHERE hour IN (${list})`, params: [...hours] },
      ]);
    },
    async rollupMark() {
      const [row] = await run(MARK, []);
      return row ? String(row.value) : null;
    },
    async setRollupMark(at: string) {
      await run(SET_MARK, [at]);
    },
  } satisfies DashboardStore;
}

export const dashboardStore: FlowStore<DashboardStore> = {
  sqlite: (db: Db) => storeOver(SQLITE_DIALECT, sqlitePlainSql(db)),
  // Plain SQL on the driver's client: nothing of PostgreSQL's to load.
  postgres: async () => (db: PgDb) => storeOver(POSTGRES_DIALECT, postgresPlainSql(db)),
};
