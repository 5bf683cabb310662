import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

// The webhooks' outbox (src/webhooks/), beside the flows' tables of src/db/schema.ts (drizzle.config.ts reads every
// schema file). A payment's or a funded approve's event row is written by the database's own triggers (migration
// 0020), in the transaction of the status change that causes it, so no flow can change a status without its event.

/**
 * One event: what happened (`type`), to which record (`source`, `record_id`), and once fanned out its payload (the
 * lookup's record at that moment). `dedupe_key` is unique: the same transition, the same pending payment or the
 * same crossing of an alert threshold seen by several instances is one event. `endpoint` names the one endpoint
 * of a test event; null sends to every endpoint whose filters match.
 */
export const webhookEvents = sqliteTable(
  "webhook_events",
  {
    /** 32 hex characters; the deliveries' `webhook-id` is `msg_` and this. */
    id: text("id").primaryKey(),
    dedupeKey: text("dedupe_key").notNull(),
    type: text("type").notNull(),
    /** The table of the record (eoa_settlements, x402_settlements, swap_settlements, issued_user_ops, funded_approvals), or `operator`. */
    source: text("source").notNull(),
    recordId: text("record_id"),
    network: text("network"),
    endpoint: text("endpoint"),
    /** The `data` every delivery of the event carries (JSON), written when it is fanned out. */
    payload: text("payload"),
    /** 0 until the deliveries of the matching endpoints are written. */
    fannedOut: integer("fanned_out").notNull().default(0),
    createdAt: text("created_at").notNull(),
  },
  (table) => [
    uniqueIndex("webhook_events_dedupe").on(table.dedupeKey),
    index("webhook_events_created").on(table.createdAt),
    index("webhook_events_record").on(table.source, table.recordId),
    index("webhook_events_waiting").on(table.createdAt).where(sql`${table.fannedOut} = 0`),
  ],
);

/**
 * One event's delivery to one endpoint: pending (due at `next_attempt_at`, unless leased), delivered, or dead (out
 * of attempts, or its endpoint answered 410). An instance leases a due delivery (`lease_owner`, `lease_until`)
 * before its attempt; an instance killed mid-attempt leaves a lease that expires, and another instance retries.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: text("event_id").notNull(),
    endpoint: text("endpoint").notNull(),
    status: text("status", { enum: ["pending", "delivered", "dead"] }).notNull(),
    attempts: integer("attempts").notNull(),
    nextAttemptAt: text("next_attempt_at").notNull(),
    leaseOwner: text("lease_owner"),
    leaseUntil: text("lease_until"),
    /** The last attempt's HTTP status (null: no answer) and what went wrong, never the receiver's body. */
    lastStatus: integer("last_status"),
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

/** An endpoint the service stopped delivering to (it answered 410 Gone); an admin may enable it again. */
export const webhookEndpoints = sqliteTable("webhook_endpoints", {
  id: text("id").primaryKey(),
  disabledAt: text("disabled_at"),
  disabledReason: text("disabled_reason"),
});

/**
 * An operator alert's state (`executor.low_balance:bsc:0x…`): whether the figure is below its threshold, and how
 * many times it crossed it. The instance whose conditional update flips `below` raises the crossing's one event.
 * `read_block` is the block of the reading that last changed it: a reading of an older block (an instance whose node
 * lags or answers late) changes nothing, so it can neither re-arm a crossing another instance raised nor raise one.
 */
export const webhookAlerts = sqliteTable("webhook_alerts", {
  key: text("key").primaryKey(),
  below: integer("below").notNull(),
  crossings: integer("crossings").notNull(),
  readBlock: integer("read_block").notNull().default(0),
  updatedAt: text("updated_at").notNull(),
});

export type WebhookEvent = typeof webhookEvents.$inferSelect;
export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
