import { createKeyLeaseStorePostgres } from "../../chain/key-lease-store-postgres";
import type { DenyPolicy } from "../../deny/deny-counters";
import { createPostgresDenyCounters } from "../../deny/postgres-deny-counters";
import type { FlowStore } from "../../flow";
import { FLOWS } from "../../flows";
import { createFundingStorePostgres } from "../../onboarding/funding-store-postgres";
import { createSettlementStorePostgres } from "../../settlement/settlement-store-postgres";
import { createIssuedUserOpStorePostgres } from "../../userops/issued-user-op-store-postgres";
import { DatabaseUnavailableError } from "../database-unavailable";
import { flowStores, type Stores } from "../stores";
import { isPostgresHealthy, openPostgres, type PgDb } from "./open";

/**
 * Every store of the service on PostgreSQL (several instances). Imported only when the service runs on
 * PostgreSQL (src/db/stores.ts); each flow's adapter is loaded here too, by its `store.postgres()`.
 */
export async function createPostgresStores(db: PgDb, deny: DenyPolicy): Promise<Stores> {
  const adapters = new Map<unknown, (db: PgDb) => unknown>();
  for (const flow of FLOWS)
    if ("store" in flow && flow.store) adapters.set(flow.store, await (flow.store as FlowStore<unknown>).postgres());
  return {
    ...flowStores((store) => (adapters.get(store) as (db: PgDb) => unknown)(db)),
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

/** Connects to PostgreSQL at `url` (migrating it) and builds its stores; a failed connection is named, not the URL. */
export async function openPostgresStores(url: string, deny: DenyPolicy): Promise<Stores> {
  let db: PgDb;
  try {
    db = await openPostgres(url);
  } catch (error) {
    const cause = (error as { code?: string }).code ?? (error as Error).name;
    throw new DatabaseUnavailableError(`databaseUrl (DATABASE_URL): PostgreSQL could not be opened (${cause})`);
  }
  return createPostgresStores(db, deny);
}
