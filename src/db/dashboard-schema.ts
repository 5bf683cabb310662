import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

// The dashboard's tables, beside the settlement records of src/db/schema.ts (drizzle.config.ts reads every schema file).

/**
 * The dashboard's hourly rollups of the settlement records (src/dashboard/rollups.ts): per hour (ISO, the hour's start),
 * network, flow, source table and token, the counts, exact sums (decimal strings, summed as bigints by the
 * service) and a latency histogram (JSON). Built by the service from the rows; an hour is stored once it has ended and
 * none of its records is pending, and built again when one of its records changes.
 */
export const dashboardRollups = sqliteTable(
  "dashboard_rollups",
  {
    hour: text("hour").notNull(),
    network: text("network").notNull(),
    flow: text("flow").notNull(),
    source: text("source").notNull(),
    /** The token's address, lowercase; '' for records without one. */
    token: text("token").notNull(),
    success: integer("success").notNull(),
    failed: integer("failed").notNull(),
    volume: text("volume").notNull(),
    fees: text("fees").notNull(),
    gasWei: text("gas_wei").notNull(),
    gasKnown: integer("gas_known").notNull(),
    gasUnknown: integer("gas_unknown").notNull(),
    sponsoredWei: text("sponsored_wei").notNull(),
    sponsoredKnown: integer("sponsored_known").notNull(),
    sponsoredUnknown: integer("sponsored_unknown").notNull(),
    /** Latency histogram: { bucket index: count } (src/dashboard/latency.ts). */
    latency: text("latency").notNull(),
  },
  (table) => [primaryKey({ columns: [table.hour, table.network, table.flow, table.source, table.token] })],
);

/** The hours dashboard_rollups holds (an hour without records too), and when each was built. */
export const dashboardRollupHours = sqliteTable("dashboard_rollup_hours", {
  hour: text("hour").primaryKey(),
  builtAt: text("built_at").notNull(),
});

/** The rollups' refresh mark: rows updated since (less a margin) are built again. One row, name 'refreshed_at'. */
export const dashboardRollupState = sqliteTable("dashboard_rollup_state", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
});
