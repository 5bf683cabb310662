import { createKeyLeaseStoreSqlite, type KeyLeaseStore } from "../chain/key-lease-store";
import { createKeyLeaseStorePostgres } from "../chain/key-lease-store-postgres";
import type { DenyCounters, DenyPolicy } from "../deny/deny-counters";
import { createPostgresDenyCounters } from "../deny/postgres-deny-counters";
import { createSqliteDenyCounters } from "../deny/sqlite-deny-counters";
import { type AsyncDeploymentStore, createDeploymentStore } from "../deploy/deployment-store";
import { createDeploymentStorePostgres } from "../deploy/deployment-store-postgres";
import { type AsyncLeafStore, createLeafStore } from "../incognito/leaf-store";
import { createLeafStorePostgres } from "../incognito/leaf-store-postgres";
import { createSettlementStore } from "../payments/settlement-store";
import { type AsyncSettlementStore, createSettlementStorePostgres } from "../payments/settlement-store-postgres";
import { createSwapSettlementStore } from "../swap/swap-store";
import { type AsyncSwapSettlementStore, createSwapSettlementStorePostgres } from "../swap/swap-store-postgres";
import { type AsyncIssuedUserOpStore, createIssuedUserOpStore } from "../userops/issued-user-op-store";
import { createIssuedUserOpStorePostgres } from "../userops/issued-user-op-store-postgres";
import { createX402SettlementStore } from "../x402/settlement-store";
import { type AsyncX402SettlementStore, createX402SettlementStorePostgres } from "../x402/settlement-store-postgres";
import { asAsync } from "./async-port";
import { type Db, isDatabaseHealthy, openDatabase } from "./open";
import { isPostgresHealthy, openPostgres, type PgDb } from "./postgres/open";

/**
 * Every store of the service, on one database: the SQLite file (one instance) or PostgreSQL (several instances).
 * The flows see only the ports; which adapter answers is decided here, once, at start.
 */
export type Stores = {
  kind: "sqlite" | "postgres";
  settlements: AsyncSettlementStore;
  x402: AsyncX402SettlementStore;
  swaps: AsyncSwapSettlementStore;
  issued: AsyncIssuedUserOpStore;
  deployments: AsyncDeploymentStore;
  deny: DenyCounters;
  leaves: AsyncLeafStore;
  keyLeases: KeyLeaseStore;
  healthy(): Promise<boolean>;
  close(): Promise<void>;
};

export function createSqliteStores(db: Db, deny: DenyPolicy): Stores {
  return {
    kind: "sqlite",
    settlements: asAsync(createSettlementStore(db)),
    x402: asAsync(createX402SettlementStore(db)),
    swaps: asAsync(createSwapSettlementStore(db)),
    issued: asAsync(createIssuedUserOpStore(db)),
    deployments: asAsync(createDeploymentStore(db)),
    deny: createSqliteDenyCounters(db, deny),
    leaves: asAsync(createLeafStore(db)),
    keyLeases: createKeyLeaseStoreSqlite(db),
    healthy: async () => isDatabaseHealthy(db),
    close: async () => db.$client.close(),
  };
}

export function createPostgresStores(db: PgDb, deny: DenyPolicy): Stores {
  return {
    kind: "postgres",
    settlements: createSettlementStorePostgres(db),
    x402: createX402SettlementStorePostgres(db),
    swaps: createSwapSettlementStorePostgres(db),
    issued: createIssuedUserOpStorePostgres(db),
    deployments: createDeploymentStorePostgres(db),
    deny: createPostgresDenyCounters(db, deny),
    leaves: createLeafStorePostgres(db),
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
