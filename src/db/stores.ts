import type { KeyLeaseStore } from "../chain/key-lease-store";
import { createKeyLeaseStorePostgres } from "../chain/key-lease-store-postgres";
import { createKeyLeaseStoreSqlite } from "../chain/key-lease-store-sqlite";
import type { DenyCounters, DenyPolicy } from "../deny/deny-counters";
import { createPostgresDenyCounters } from "../deny/postgres-deny-counters";
import { createSqliteDenyCounters } from "../deny/sqlite-deny-counters";
import type { FlowStore } from "../flow";
import { FLOWS, type FlowStores } from "../flows";
import { createFundingStoreSqlite, type FundingStore } from "../onboarding/funding-store";
import { createFundingStorePostgres } from "../onboarding/funding-store-postgres";
import { createSettlementStore } from "../settlement/settlement-store";
import { type AsyncSettlementStore, createSettlementStorePostgres } from "../settlement/settlement-store-postgres";
import type { AsyncIssuedUserOpStore } from "../userops/issued-user-op-store";
import { createIssuedUserOpStorePostgres } from "../userops/issued-user-op-store-postgres";
import { createIssuedUserOpStore } from "../userops/issued-user-op-store-sqlite";
import { asAsync } from "./async-port";
import { type Db, isDatabaseHealthy, openDatabase } from "./open";
import { isPostgresHealthy, openPostgres, type PgDb } from "./postgres/open";

/**
 * Every store of the service, on one database: the SQLite file (one instance) or PostgreSQL (several instances).
 * The kernels' stores are named here; each flow's own store is the one its `flow.ts` declares, under the flow's
 * name. The flows see only the ports; which adapter answers is decided here, once, at start.
 */
export type Stores = FlowStores & {
  kind: "sqlite" | "postgres";
  /** The settlement kernel's records: relayer authorizations (EOA payments, deployment fees). */
  settlements: AsyncSettlementStore;
  /** The UserOp kernel's records: issued UserOps of every wallet flow. */
  issued: AsyncIssuedUserOpStore;
  /** The funding kernel's records: approves funded and broadcast for payers without native coins. */
  fundedApprovals: FundingStore;
  deny: DenyCounters;
  keyLeases: KeyLeaseStore;
  healthy(): Promise<boolean>;
  close(): Promise<void>;
};

/** Each flow's own store on the database `open` picks an adapter for. */
function flowStores(open: (store: FlowStore<unknown>) => unknown): FlowStores {
  const stores: Record<string, unknown> = {};
  for (const flow of FLOWS)
    if ("store" in flow && flow.store) stores[flow.name] = open(flow.store as FlowStore<unknown>);
  return stores as FlowStores;
}

export function createSqliteStores(db: Db, deny: DenyPolicy): Stores {
  return {
    ...flowStores((store) => store.sqlite(db)),
    kind: "sqlite",
    settlements: asAsync(createSettlementStore(db)),
    issued: asAsync(createIssuedUserOpStore(db)),
    fundedApprovals: createFundingStoreSqlite(db),
    deny: createSqliteDenyCounters(db, deny),
    keyLeases: createKeyLeaseStoreSqlite(db),
    healthy: async () => isDatabaseHealthy(db),
    close: async () => db.$client.close(),
  };
}

export function createPostgresStores(db: PgDb, deny: DenyPolicy): Stores {
  return {
    ...flowStores((store) => store.postgres(db)),
    kind: "postgres",
    settlements: createSettlementStorePostgres(db),
    issued: createIssuedUserOpStorePostgres(db),
    fundedApprovals: createFundingStorePostgres(db),
    deny: createPostgresDenyCounters(db, deny),
    keyLeases: createKeyLeaseStorePostgres(db),
    healthy: () => isPostgresHealthy(db),
    close: () => db.$client.close(),
  };
}

/** The start could not open the database; the message names the setting and the cause, never the URL (it may hold a password). */
export class DatabaseUnavailableError extends Error {}

/** Opens the configured database (migrating it) and builds its stores. */
export async function openStores(
  database: { kind: "sqlite"; path: string } | { kind: "postgres"; url: string },
  deny: DenyPolicy,
): Promise<Stores> {
  if (database.kind === "sqlite") return createSqliteStores(openDatabase(database.path), deny);
  let db: PgDb;
  try {
    db = await openPostgres(database.url);
  } catch (error) {
    const cause = (error as { code?: string }).code ?? (error as Error).name;
    throw new DatabaseUnavailableError(`databaseUrl (DATABASE_URL): PostgreSQL could not be opened (${cause})`);
  }
  return createPostgresStores(db, deny);
}
