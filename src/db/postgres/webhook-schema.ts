import { sql } from "drizzle-orm";
import { bigint, index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";

// The PostgreSQL twin of src/db/webhook-schema.ts (what each table and column means is documented there).

export const webhookEvents = pgTable(
  "webhook_events",
  {
    id: text("id").primaryKey(),
    dedupeKey: text("dedupe_key").notNull(),
    type: text("type").notNull(),
    source: text("source").notNull(),
    recordId: text("record_id"),
    network: text("network"),
    endpoint: text("endpoint"),
    payload: text("payload"),
    fannedOut: bigint("fanned_out", { mode: "number" }).notNull().default(0),
    createdAt: text("created_at").notNull(),
  },
  (table) => [
    uniqueIndex("webhook_events_dedupe").on(table.dedupeKey),
    index("webhook_events_created").on(table.createdAt),
    index("webhook_events_record").on(table.source, table.recordId),
    index("webhook_events_waiting").on(table.createdAt).where(sql`${table.fannedOut} = 0`),
  ],
);

export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    eventId: text("event_id").notNull(),
    endpoint: text("endpoint").notNull(),
    status: text("status", { enum: ["pending", "delivered", "dead"] }).notNull(),
    attempts: bigint("attempts", { mode: "number" }).notNull(),
    nextAttemptAt: text("next_attempt_at").notNull(),
    leaseOwner: text("lease_owner"),
    leaseUntil: text("lease_until"),
    lastStatus: bigint("last_status", { mode: "number" }),
    lastError: text("last_error"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    deliveredAt: text("delivered_at"),
  },
  (table) => [
    uniqueIndex("webhook_deliveries_event_endpoint").on(table.eventId, table.endpoint),
    index("webhook_deliveries_due").on(table.nextAttemptAt).where(sql`${table.status} = 'pending'`),
    index("webhook_deliveries_endpoint").on(table.endpoint, table.status),
    index("webhook_deliveries_created").on(table.createdAt),
  ],
);

export const webhookEndpoints = pgTable("webhook_endpoints", {
  id: text("id").primaryKey(),
  disabledAt: text("disabled_at"),
  disabledReason: text("disabled_reason"),
});

export const webhookAlerts = pgTable("webhook_alerts", {
  key: text("key").primaryKey(),
  below: bigint("below", { mode: "number" }).notNull(),
  crossings: bigint("crossings", { mode: "number" }).notNull(),
  readBlock: bigint("read_block", { mode: "number" }).notNull().default(0),
  updatedAt: text("updated_at").notNull(),
});
