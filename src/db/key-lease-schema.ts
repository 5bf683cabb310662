import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

// Executor key leases, beside the flows' tables of src/db/schema.ts (drizzle.config.ts reads every schema file).

/**
 * Executor key leases (several instances on one database, src/chain/key-leases.ts): one row per key an instance
 * holds, so that one key sends from one instance at a time. A lease is taken when there is no row, when the row's
 * lease has expired, or when the row is already the taker's; its holder renews it (`heartbeat_at`) well before
 * `expires_at` and deletes it when it lets the key go. Both times are unix milliseconds of the database's clock,
 * so instances' clocks never meet. `taken_from` is the holder whose expired lease this one took over (null when
 * the key was free): that holder died with the key, and its in-flight transactions must be resolved first.
 */
export const keyLeases = sqliteTable(
  "key_leases",
  {
    network: text("network").notNull(),
    /** The executor key's address, lowercase. */
    address: text("address").notNull(),
    /** The holding instance's id (random per process; one fixed id for a single instance on its SQLite file). */
    holder: text("holder").notNull(),
    expiresAt: integer("expires_at").notNull(),
    heartbeatAt: integer("heartbeat_at").notNull(),
    takenFrom: text("taken_from"),
  },
  (table) => [primaryKey({ columns: [table.network, table.address] })],
);

export type KeyLease = typeof keyLeases.$inferSelect;
