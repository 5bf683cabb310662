import type { PgDb } from "../db/postgres/open";
import { type DenyCounters, type DenyPolicy, deniedBy, limitsOf } from "./deny-counters";

type CounterRow = { reverts: number | string; last_revert_at: number | string };

/**
 * Deny counters on PostgreSQL, shared by every instance on the database: the same row per (network, kind,
 * address) and the same rules as sqlite-deny-counters.ts. A revert is ONE upsert, so concurrent reverts of one
 * subject from any number of instances each count once: ON CONFLICT DO UPDATE waits for a concurrent writer of
 * the row and then updates the committed row. Both statements are tagged templates of Bun's client, which
 * prepares each once per connection (the read is on every verify and settle).
 */
export function createPostgresDenyCounters(db: PgDb, policy: DenyPolicy): DenyCounters {
  const client = db.$client;
  return {
    async recordRevert(network, kind, address, reason) {
      const at = policy.now();
      await client`
        INSERT INTO deny_counters (network, kind, address, reverts, last_revert_at, last_reason)
        VALUES (${network}, ${kind}, ${address.toLowerCase()}, 1, ${at}, ${reason})
        ON CONFLICT (network, kind, address) DO UPDATE SET
          reverts = CASE WHEN deny_counters.last_revert_at + ${limitsOf(policy, kind).windowSeconds} <= excluded.last_revert_at
            THEN 1 ELSE deny_counters.reverts + 1 END,
          last_revert_at = GREATEST(deny_counters.last_revert_at, excluded.last_revert_at),
          last_reason = excluded.last_reason`;
    },
    async isDenied(network, kind, address) {
      const [row] = (await client`
        SELECT reverts, last_revert_at FROM deny_counters
        WHERE network = ${network} AND kind = ${kind} AND address = ${address.toLowerCase()}`) as CounterRow[];
      return deniedBy(policy, kind, row && { reverts: Number(row.reverts), lastRevertAt: Number(row.last_revert_at) });
    },
  };
}
