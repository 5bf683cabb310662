import { Database } from "bun:sqlite";
import { closeSync, fsyncSync, openSync } from "node:fs";

const DAY_S = 86_400;

/** The outbox's rows as the database holds them: its events, their deliveries, and the events before a date. */
export type OutboxCounts = { events: number; deliveries: number; before: number; orphanDeliveries: number };

/**
 * Fills a stopped service's SQLite outbox with `events` delivered events (one delivery each, to `endpoint`) in one
 * transaction of plain SQL, as months of traffic would leave it: the first `oldShare` of them 8 to 30 days old (past
 * the default retention of 7 days), the rest 6 days to 1 hour old. Every event carries `payload`, a real event's.
 * The file is synced before this returns (the fill itself skips syncs), so that no service measured later pays for
 * writing it back. Answers the seconds it took.
 */
export function fillOutbox(
  path: string,
  options: { events: number; oldShare: number; payload: string; endpoint: string },
) {
  const began = performance.now();
  const db = new Database(path);
  try {
    const nowS = Date.now() / 1000;
    const old = Math.floor(options.events * options.oldShare);
    // Event i's creation time in seconds: spread evenly over its span, oldest first.
    const createdS = `CASE WHEN i < ${old}
        THEN ${nowS - 30 * DAY_S} + i * ${(22 * DAY_S) / Math.max(1, old)}
        ELSE ${nowS - 6 * DAY_S} + (i - ${old}) * ${(6 * DAY_S - 3_600) / Math.max(1, options.events - old)} END`;
    const iso = (seconds: string) => `strftime('%Y-%m-%dT%H:%M:%fZ', ${seconds}, 'unixepoch')`;
    db.exec("PRAGMA synchronous = OFF");
    db.transaction(() => {
      db.query(
        `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
         INSERT INTO webhook_events (id, dedupe_key, type, source, record_id, network, endpoint, payload, fanned_out, created_at)
         SELECT printf('bench%027x', i), 'bench:' || i, 'payment.settled', 'eoa_settlements', 'bench' || i, 'bsc', NULL,
           ?, 1, ${iso(createdS)}
         FROM n`,
      ).run(options.events, options.payload);
      db.query(
        `INSERT INTO webhook_deliveries (event_id, endpoint, status, attempts, next_attempt_at, last_status, created_at,
           updated_at, delivered_at)
         SELECT id, ?, 'delivered', 1, created_at, 200, created_at, created_at, created_at FROM webhook_events
         WHERE id LIKE 'bench%'`,
      ).run(options.endpoint);
    })();
  } finally {
    // Closing the last connection checkpoints the WAL into the file.
    db.close();
  }
  const file = openSync(path, "r+");
  try {
    fsyncSync(file);
  } finally {
    closeSync(file);
  }
  return (performance.now() - began) / 1000;
}

/** A reader of a service's SQLite outbox from outside its process (WAL: it never blocks the service's writes). */
export function outboxReader(path: string) {
  const db = new Database(path, { readonly: true });
  const count = (sql: string, ...params: string[]) =>
    Number((db.query(sql).get(...params) as { n: number } | null)?.n ?? 0);
  return {
    /** Events created before `before` (ISO), by the created_at index: cheap enough to poll while a purge runs. */
    before: (before: string) => count("SELECT count(*) AS n FROM webhook_events WHERE created_at < ?", before),
    counts(before: string): OutboxCounts {
      return {
        events: count("SELECT count(*) AS n FROM webhook_events"),
        deliveries: count("SELECT count(*) AS n FROM webhook_deliveries"),
        before: count("SELECT count(*) AS n FROM webhook_events WHERE created_at < ?", before),
        orphanDeliveries: count(
          "SELECT count(*) AS n FROM webhook_deliveries d WHERE NOT EXISTS (SELECT 1 FROM webhook_events e WHERE e.id = d.event_id)",
        ),
      };
    },
    /** A real event's payload (the lookup's record of a settled payment), to fill the outbox with. */
    payload: () =>
      (
        db
          .query("SELECT payload FROM webhook_events WHERE payload IS NOT NULL AND payload <> 'null' LIMIT 1")
          .get() as {
          payload: string;
        } | null
      )?.payload,
    /** Of one endpoint's deliveries of these payments' payment.settled events: how many took each number of attempts. */
    attempts(endpoint: string, paymentIds: readonly string[]) {
      return db
        .query(
          `SELECT d.attempts AS attempts, d.status AS status, count(*) AS n FROM webhook_deliveries d
           JOIN webhook_events e ON e.id = d.event_id
           WHERE d.endpoint = ? AND e.type = 'payment.settled'
             AND json_extract(e.payload, '$.paymentId') IN (${paymentIds.map(() => "?").join(", ")})
           GROUP BY d.attempts, d.status ORDER BY d.attempts`,
        )
        .all(endpoint, ...paymentIds) as { attempts: number; status: string; n: number }[];
    },
    close: () => db.close(),
  };
}
