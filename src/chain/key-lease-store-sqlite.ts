import { sql } from "drizzle-orm";
import type { Db } from "../db/open";
import {
  type KeyLeaseStore,
  leaseStatements,
  type RawLease,
  type RawRow,
  toLeaseRow,
  toTaken,
} from "./key-lease-store";

/**
 * The SQLite adapter: the same statements on the service's file. A SQLite file serves one instance, so that
 * instance always gets its keys; the wiring gives it one fixed holder id, so that after a crash the restarted
 * process takes its own leases again at once instead of waiting for them to expire (start-up reconciliation
 * resolves what the crashed process left, as it does today).
 */
export function createKeyLeaseStoreSqlite(db: Db): KeyLeaseStore {
  const statements = leaseStatements(sql`CAST(unixepoch('subsec') * 1000 AS INTEGER)`);
  const lower = (address: string) => address.toLowerCase();
  return {
    take: async (network, address, holder, leaseMs) =>
      toTaken(db.all<RawLease>(statements.take(network, lower(address), holder, leaseMs))[0]),
    renew: async (network, address, holder, leaseMs) =>
      db.all(statements.renew(network, lower(address), holder, leaseMs)).length > 0,
    release: async (network, address, holder) => {
      db.run(statements.release(network, lower(address), holder));
    },
    leases: async (network) => db.all<RawRow>(statements.leases(network)).map(toLeaseRow),
  };
}
