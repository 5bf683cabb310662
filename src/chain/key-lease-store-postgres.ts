import { sql } from "drizzle-orm";
import type { PgDb } from "../db/postgres/open";
import { type KeyLeaseStore, leaseStatements, toLeaseRow, toTaken } from "./key-lease-store";

type Rows = Record<string, unknown>[];

/**
 * The PostgreSQL adapter of the key lease store, for several instances on one database: the statements of
 * key-lease-store.ts, each one autocommitted statement. Under READ COMMITTED a take that meets a row another
 * taker is inserting or updating waits for that commit and then judges the committed row (ON CONFLICT DO UPDATE's
 * guarantee), so of any number of concurrent takes of one key exactly one wins. `now()` is the statement's start:
 * a take that waited compares expiry with an earlier time, which can only make it more reluctant to take over.
 */
export function createKeyLeaseStorePostgres(db: PgDb): KeyLeaseStore {
  const statements = leaseStatements(sql`(extract(epoch from now()) * 1000)::bigint`);
  const lower = (address: string) => address.toLowerCase();
  const run = async (query: ReturnType<typeof sql>) => (await db.execute(query)) as unknown as Rows;
  return {
    take: async (network, address, holder, leaseMs) => {
      const [row] = await run(statements.take(network, lower(address), holder, leaseMs));
      return toTaken(row as never);
    },
    renew: async (network, address, holder, leaseMs) =>
      (await run(statements.renew(network, lower(address), holder, leaseMs))).length > 0,
    release: async (network, address, holder) => {
      await run(statements.release(network, lower(address), holder));
    },
    leases: async (network) => (await run(statements.leases(network))).map((row) => toLeaseRow(row as never)),
  };
}
