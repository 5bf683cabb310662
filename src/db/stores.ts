import type { KeyLeaseStore } from "../chain/key-lease-store";
import { createKeyLeaseStoreSqlite } from "../chain/key-lease-store-sqlite";
import type { DenyCounters, DenyPolicy } from "../deny/deny-counters";
import { createSqliteDenyCounters } from "../deny/sqlite-deny-counters";
import type { FlowStore } from "../flow";
import { FLOWS, type FlowStores } from "../flows";
import { createFundingStoreSqlite, type FundingStore } from "../onboarding/funding-store";
import { createSettlementStore } from "../settlement/settlement-store";
import type { AsyncSettlementStore } from "../settlement/settlement-store-postgres";
import type { AsyncIssuedUserOpStore } from "../userops/issued-user-op-store";
import { createIssuedUserOpStore } from "../userops/issued-user-op-store-sqlite";
import { asAsync } from "./async-port";
import { type Db, isDatabaseHealthy, openDatabase } from "./open";

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
export function flowStores(open: (store: FlowStore<unknown>) => unknown): FlowStores {
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

/** Opens the configured database (migrating it) and builds its stores. */
export async function openStores(
  database: { kind: "sqlite"; path: string } | { kind: "postgres"; url: string },
  deny: DenyPolicy,
): Promise<Stores> {
  if (database.kind === "sqlite") return createSqliteStores(openDatabase(database.path), deny);
  // Loaded only here: one instance on SQLite never loads the PostgreSQL stores nor drizzle's pg-core.
  const { openPostgresStores } = await import("./postgres/stores");
  return openPostgresStores(database.url, deny);
}
