// The outbox's bookkeeping on SQLite commits without waiting for the disk: on a synced connection every lease and
// attempt would hold the event loop for an fsync, and the settles it serves with it (bench:webhooks measured three
// endpoints at 1.7× the settle p50 of none that way, docs/benchmarks.md).
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../db/open";
import { webhookStore } from "./webhook-store-sql";

const dir = mkdtempSync(join(tmpdir(), "relay402-webhook-commits-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("every write of the webhook store runs with synchronous=NORMAL, and the connection is FULL again after", async () => {
  const db = openDatabase(join(dir, "outbox.sqlite"));
  const store = webhookStore.sqlite(db);
  const client = db.$client;
  const query = client.query.bind(client);
  const synchronous = () => (query("PRAGMA synchronous").get() as { synchronous: number }).synchronous;
  // The level each write statement ran at, read on the real connection just before it runs.
  const levels: { statement: string; level: number }[] = [];
  client.query = ((text: string) => {
    const statement = query(text);
    if (!/^\s*(INSERT|UPDATE|DELETE)/i.test(text)) return statement;
    const level = () =>
      levels.push({ statement: text.trim().split(/\s+/).slice(0, 3).join(" "), level: synchronous() });
    return new Proxy(statement, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property !== "run" && property !== "all") return typeof value === "function" ? value.bind(target) : value;
        return (...args: unknown[]) => {
          level();
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }) as typeof client.query;

  const now = new Date().toISOString();
  const event = { type: "webhook.test" as const, source: "operator" as const, recordId: null, network: null };
  expect(await store.addEvent({ ...event, dedupeKey: "k1", endpoint: "shop", payload: "{}" }, now)).toBe(true);
  const [waiting] = await store.waitingEvents(10);
  await store.fanOut(waiting?.id as string, "{}", ["shop"], now);
  const [leased] = await store.leaseDue("owner", ["shop"], now, new Date(Date.now() + 60_000).toISOString(), 10);
  await store.recordAttempt(
    leased?.id as number,
    "owner",
    { status: "delivered", nextAttemptAt: now, lastStatus: 200, lastError: null },
    now,
  );
  await store.setEndpointDisabled("shop", { at: now, reason: "answered 410 Gone" });
  expect(await store.purge(new Date(Date.now() + 1_000).toISOString(), 100)).toBe(1);

  expect(levels.map((write) => write.statement)).toEqual([
    "INSERT INTO webhook_events",
    "UPDATE webhook_events SET",
    "INSERT INTO webhook_deliveries",
    "UPDATE webhook_deliveries SET",
    "UPDATE webhook_deliveries SET",
    "INSERT INTO webhook_endpoints",
    "DELETE FROM webhook_deliveries",
    "DELETE FROM webhook_events",
  ]);
  expect(levels.filter((write) => write.level !== 1)).toEqual([]);
  expect(synchronous()).toBe(2);
  client.close();
});
