import { POSTGRES_DIALECT, rowOf, rowsQuery, SQLITE_DIALECT } from "../dashboard/records";
import type { Db } from "../db/open";
import { type PlainSql, postgresPlainSql, sqlitePlainSql } from "../db/plain-sql";
import type { PgDb } from "../db/postgres/open";
import type { FlowStore } from "../flow";
import type { DeliveryStatus, EndpointCounts, FannedOut, OutboxEvent, WebhookStore } from "./webhook-store";

type Raw = Record<string, unknown>;
const text = (value: unknown) => (value === null || value === undefined ? null : String(value));
const list = (items: readonly unknown[]) => items.map(() => "?").join(", ");
const newEventId = () => crypto.randomUUID().replace(/-/g, "");

const eventOf = (raw: Raw): OutboxEvent => ({
  id: String(raw.id),
  type: raw.type as OutboxEvent["type"],
  source: raw.source as OutboxEvent["source"],
  recordId: text(raw.record_id),
  network: text(raw.network),
  endpoint: text(raw.endpoint),
  payload: text(raw.payload),
  createdAt: String(raw.created_at),
});

/** What differs between the databases here: PostgreSQL's instances skip the rows another one is leasing. */
type OutboxDialect = { records: typeof SQLITE_DIALECT; lockDue: string };

// A funded approve's columns an event carries: its raw transactions stay out (they are on-chain once sent).
const FUNDED_APPROVAL_COLUMNS = `id, network, payer, nonce, token, spender, approve_hash, funding_wei, funding_tx_hash,
  funding_fee_wei, approve_cost_wei, kept_wei, status, error, created_at, updated_at`;

function storeOver(dialect: OutboxDialect, { run, atomically }: PlainSql): WebhookStore {
  const fanOutMany = (items: readonly FannedOut[], now: string) =>
    atomically(
      items.flatMap(({ eventId, payload, endpoints }) => [
        {
          text: "UPDATE webhook_events SET payload = ?, fanned_out = 1 WHERE id = ? AND fanned_out = 0",
          params: [payload, eventId],
        },
        ...endpoints.map((endpoint) => ({
          text: `INSERT INTO webhook_deliveries (event_id, endpoint, status, attempts, next_attempt_at, created_at, updated_at)
                 VALUES (?, ?, 'pending', 0, ?, ?, ?) ON CONFLICT (event_id, endpoint) DO NOTHING`,
          params: [eventId, endpoint, now, now, now],
        })),
      ]),
    );

  return {
    async waitingEvents(limit) {
      const rows = await run(
        `SELECT id, type, source, record_id, network, endpoint, payload, created_at FROM webhook_events
         WHERE fanned_out = 0 ORDER BY created_at LIMIT ${Number(limit)}`,
        [],
      );
      return rows.map(eventOf);
    },

    async paymentRows(filter, limit) {
      const query = rowsQuery(dialect.records, filter, limit);
      return (await run(query.text, query.params)).map(rowOf);
    },

    async fundedApproval(id) {
      const [row] = await run(`SELECT ${FUNDED_APPROVAL_COLUMNS} FROM funded_approvals WHERE id = ?`, [Number(id)]);
      return row;
    },

    fanOut: (eventId, payload, endpoints, now) => fanOutMany([{ eventId, payload, endpoints }], now),
    fanOutMany,

    async addEvent(event, now) {
      const rows = await run(
        `INSERT INTO webhook_events (id, dedupe_key, type, source, record_id, network, endpoint, payload, fanned_out, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?) ON CONFLICT (dedupe_key) DO NOTHING RETURNING id`,
        [
          newEventId(),
          event.dedupeKey,
          event.type,
          event.source,
          event.recordId,
          event.network,
          event.endpoint,
          event.payload,
          now,
        ],
      );
      return rows.length > 0;
    },

    async leaseDue(owner, endpoints, now, leaseUntil, limit) {
      if (endpoints.length === 0) return [];
      // The outer condition again: an instance that waited on a row another one leased meanwhile takes nothing.
      const leased = await run(
        `UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ?, updated_at = ?
         WHERE id IN (
           SELECT id FROM webhook_deliveries
           WHERE status = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ?)
             AND endpoint IN (${list(endpoints)})
             AND endpoint NOT IN (SELECT id FROM webhook_endpoints WHERE disabled_at IS NOT NULL)
           ORDER BY next_attempt_at LIMIT ${Number(limit)}${dialect.lockDue})
         AND status = 'pending' AND (lease_until IS NULL OR lease_until < ?)
         RETURNING id, event_id, endpoint, attempts, created_at`,
        [owner, leaseUntil, now, now, now, ...endpoints, now],
      );
      if (leased.length === 0) return [];
      const ids = [...new Set(leased.map((row) => String(row.event_id)))];
      const events = new Map(
        (await run(`SELECT id, type, payload, created_at FROM webhook_events WHERE id IN (${list(ids)})`, ids)).map(
          (row) => [String(row.id), row],
        ),
      );
      return leased.flatMap((row) => {
        const event = events.get(String(row.event_id));
        if (!event) return [];
        return [
          {
            id: Number(row.id),
            endpoint: String(row.endpoint),
            attempts: Number(row.attempts),
            createdAt: String(row.created_at),
            event: {
              id: String(event.id),
              type: String(event.type),
              payload: String(event.payload ?? "null"),
              createdAt: String(event.created_at),
            },
          },
        ];
      });
    },

    async recordAttempt(id, owner, outcome, now) {
      await run(
        `UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, next_attempt_at = ?, lease_owner = NULL,
           lease_until = NULL, last_status = ?, last_error = ?, updated_at = ?, delivered_at = ?
         WHERE id = ? AND lease_owner = ?`,
        [
          outcome.status,
          outcome.nextAttemptAt,
          outcome.lastStatus,
          outcome.lastError,
          now,
          outcome.status === "delivered" ? now : null,
          id,
          owner,
        ],
      );
    },

    async disabledEndpoints() {
      const rows = await run(
        "SELECT id, disabled_at, disabled_reason FROM webhook_endpoints WHERE disabled_at IS NOT NULL",
        [],
      );
      return new Map(
        rows.map((row) => [String(row.id), { disabledAt: String(row.disabled_at), reason: text(row.disabled_reason) }]),
      );
    },

    async setEndpointDisabled(id, disabled) {
      await run(
        `INSERT INTO webhook_endpoints (id, disabled_at, disabled_reason) VALUES (?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET disabled_at = excluded.disabled_at, disabled_reason = excluded.disabled_reason`,
        [id, disabled?.at ?? null, disabled?.reason ?? null],
      );
    },

    async deliveries(filter) {
      const where: string[] = [];
      const params: unknown[] = [];
      const bind = (clause: string, ...values: unknown[]) => {
        where.push(clause);
        params.push(...values);
      };
      if (filter.endpoint) bind("d.endpoint = ?", filter.endpoint);
      if (filter.status) bind("d.status = ?", filter.status);
      if (filter.record) bind("e.source = ? AND e.record_id = ?", filter.record.source, filter.record.recordId);
      if (filter.before) bind("d.created_at < ?", filter.before);
      const rows = await run(
        `SELECT d.id, d.event_id, e.type, e.source, e.record_id, e.network, d.endpoint, d.status, d.attempts,
           d.next_attempt_at, d.last_status, d.last_error, d.created_at, d.delivered_at
         FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
         ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
         ORDER BY d.created_at DESC, d.id DESC LIMIT ${Number(filter.limit)}`,
        params,
      );
      return rows.map((row) => ({
        id: Number(row.id),
        eventId: String(row.event_id),
        type: String(row.type),
        source: String(row.source),
        recordId: text(row.record_id),
        network: text(row.network),
        endpoint: String(row.endpoint),
        status: row.status as DeliveryStatus,
        attempts: Number(row.attempts),
        nextAttemptAt: String(row.next_attempt_at),
        lastStatus: row.last_status === null || row.last_status === undefined ? null : Number(row.last_status),
        lastError: text(row.last_error),
        createdAt: String(row.created_at),
        deliveredAt: text(row.delivered_at),
      }));
    },

    async endpointCounts() {
      const counts = new Map<string, EndpointCounts>();
      const of = (endpoint: string) => {
        const entry = counts.get(endpoint) ?? { pending: 0, failing: 0, delivered: 0, dead: 0 };
        counts.set(endpoint, entry);
        return entry;
      };
      // By the (endpoint, status) index; the failing ones among the few pending.
      for (const row of await run(
        "SELECT endpoint, status, count(*) AS n FROM webhook_deliveries GROUP BY endpoint, status",
        [],
      )) {
        of(String(row.endpoint))[row.status as DeliveryStatus] = Number(row.n);
      }
      for (const row of await run(
        "SELECT endpoint, count(*) AS n FROM webhook_deliveries WHERE status = 'pending' AND attempts > 0 GROUP BY endpoint",
        [],
      )) {
        of(String(row.endpoint)).failing = Number(row.n);
      }
      return counts;
    },

    async replay(id, now) {
      // The lease stays: an attempt in flight finishes and its outcome stands, rather than a second attempt of the
      // same message starting beside it. An expired lease (a killed instance's) is taken over as usual.
      const rows = await run(
        `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, created_at = ?, updated_at = ?,
           delivered_at = NULL
         WHERE id = ? RETURNING id`,
        [now, now, now, id],
      );
      return rows.length > 0;
    },

    async purge(before, limit) {
      const ids = (
        await run(`SELECT id FROM webhook_events WHERE created_at < ? ORDER BY created_at LIMIT ${Number(limit)}`, [
          before,
        ])
      ).map((row) => String(row.id));
      if (ids.length === 0) return 0;
      await atomically([
        { text: `DELETE FROM webhook_deliveries WHERE event_id IN (${list(ids)})`, params: ids },
        { text: `DELETE FROM webhook_events WHERE id IN (${list(ids)})`, params: ids },
      ]);
      return ids.length;
    },

    async crossAlert(key, below, block, now) {
      // A reading of a block older than the one that last changed the state changes nothing (a lagging node).
      const readBlock = Number(block);
      if (!below) {
        await run(
          "UPDATE webhook_alerts SET below = 0, read_block = ?, updated_at = ? WHERE key = ? AND below = 1 AND read_block <= ?",
          [readBlock, now, key, readBlock],
        );
        return undefined;
      }
      // Only the flip from above to below returns a row: of instances reading the same low figure, one raises it.
      const [row] = await run(
        `INSERT INTO webhook_alerts (key, below, crossings, read_block, updated_at) VALUES (?, 1, 1, ?, ?)
         ON CONFLICT (key) DO UPDATE SET below = 1, crossings = webhook_alerts.crossings + 1,
           read_block = excluded.read_block, updated_at = excluded.updated_at
         WHERE webhook_alerts.below = 0 AND webhook_alerts.read_block <= excluded.read_block
         RETURNING crossings`,
        [key, readBlock, now],
      );
      return row ? Number(row.crossings) : undefined;
    },
  };
}

export const webhookStore: FlowStore<WebhookStore> = {
  // Lazy commits: a lease, an attempt or a fan-out a crash of the machine loses is made again (a delivery sent
  // twice, which at-least-once allows); the events themselves are committed by the flows, with their status change.
  sqlite: (db: Db) => storeOver({ records: SQLITE_DIALECT, lockDue: "" }, sqlitePlainSql(db, "lazy")),
  // Plain SQL on the driver's client: nothing of PostgreSQL's to load.
  postgres: async () => (db: PgDb) =>
    storeOver({ records: POSTGRES_DIALECT, lockDue: " FOR UPDATE SKIP LOCKED" }, postgresPlainSql(db)),
};
