import { bigint, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

// The PostgreSQL twin of src/db/key-lease-schema.ts (what each column means is documented there).

export const keyLeases = pgTable(
  "key_leases",
  {
    network: text("network").notNull(),
    address: text("address").notNull(),
    holder: text("holder").notNull(),
    expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
    heartbeatAt: bigint("heartbeat_at", { mode: "number" }).notNull(),
    takenFrom: text("taken_from"),
  },
  (table) => [primaryKey({ columns: [table.network, table.address] })],
);
