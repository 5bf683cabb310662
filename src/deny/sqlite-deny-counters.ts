import { sql } from "drizzle-orm";
import type { Db } from "../db/open";
import { denyCounters } from "../db/schema";
import { type DenyCounters, type DenyKind, type DenyPolicy, deniedBy, limitsOf } from "./deny-counters";

/**
 * Deny counters in the service's SQLite database: one row per (network, kind, address). A revert more than its
 * kind's `windowSeconds` after the previous one starts the count again at 1. Each statement runs in the call, as
 * bun:sqlite does; only the answer arrives as a promise (the port is async for PostgreSQL's sake).
 */
export function createSqliteDenyCounters(db: Db, policy: DenyPolicy): DenyCounters {
  // Read on every verify and settle: one statement prepared once, in bun:sqlite itself (through Drizzle's prepared
  // query, mapping the row cost a verify as much as the read).
  const selectRow = db.$client.query<{ reverts: number; lastRevertAt: number }, [string, string, string]>(
    "SELECT reverts, last_revert_at AS lastRevertAt FROM deny_counters WHERE network = ? AND kind = ? AND address = ?",
  );
  const row = (network: string, kind: DenyKind, address: string) =>
    selectRow.get(network, kind, address.toLowerCase()) ?? undefined;

  return {
    recordRevert(network, kind, address, reason) {
      try {
        // One statement, so concurrent settlements of one payer never lose a count.
        db.insert(denyCounters)
          .values({
            network,
            kind,
            address: address.toLowerCase(),
            reverts: 1,
            lastRevertAt: policy.now(),
            lastReason: reason,
          })
          .onConflictDoUpdate({
            target: [denyCounters.network, denyCounters.kind, denyCounters.address],
            set: {
              reverts: sql`CASE WHEN ${denyCounters.lastRevertAt} + ${limitsOf(policy, kind).windowSeconds} <= excluded.last_revert_at THEN 1 ELSE ${denyCounters.reverts} + 1 END`,
              lastRevertAt: sql`max(${denyCounters.lastRevertAt}, excluded.last_revert_at)`,
              lastReason: sql`excluded.last_reason`,
            },
          })
          .run();
        return Promise.resolve();
      } catch (error) {
        return Promise.reject(error);
      }
    },
    isDenied(network, kind, address) {
      try {
        return Promise.resolve(deniedBy(policy, kind, row(network, kind, address)));
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
}
