// The webhooks' outbox on both databases, driven through the real settlement store: a status change writes its
// event in the same transaction (the triggers of migration 0020 / PostgreSQL 0011), one event per transition; the
// fan-out, the leases, the alerts' crossings and the purge behave the same on SQLite and PostgreSQL.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hex } from "viem";
import { openDatabase } from "../../src/db/open";
import { openPostgres } from "../../src/db/postgres/open";
import type { Authorization } from "../../src/settlement/authorization";
import { createSettlementStore, settlementOf } from "../../src/settlement/settlement-store";
import { createSettlementStorePostgres } from "../../src/settlement/settlement-store-postgres";
import type { WebhookStore } from "../../src/webhooks/webhook-store";
import { webhookStore } from "../../src/webhooks/webhook-store-sql";
import { createTestDatabase } from "../support/postgres";

type Journal = {
  claim(settlement: ReturnType<typeof settlementOf>): unknown;
  markSent(id: number, txHash: string, rawTx: string): unknown;
  markOutcome(id: number, outcome: { status: "success" | "failed"; txHash?: string; blockNumber?: number }): unknown;
};
type Backend = {
  name: string;
  open(): Promise<{
    outbox: WebhookStore;
    journal: Journal;
    sql(text: string): Promise<unknown[]>;
    close(): Promise<void>;
  }>;
};

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

const BACKENDS: Backend[] = [
  {
    name: "SQLite",
    async open() {
      const db = openDatabase(join(mkdtempSync(join(tmpdir(), "relay402-outbox-")), "outbox.sqlite"));
      return {
        outbox: webhookStore.sqlite(db),
        journal: createSettlementStore(db),
        sql: async (text) => db.$client.query(text).all(),
        close: async () => db.$client.close(),
      };
    },
  },
  {
    name: "PostgreSQL",
    async open() {
      const db = await openPostgres(await createTestDatabase("outbox"), { max: 4 });
      return {
        outbox: (await webhookStore.postgres())(db),
        journal: createSettlementStorePostgres(db),
        sql: async (text) => db.$client.unsafe(text),
        close: async () => db.$client.close(),
      };
    },
  },
];

const hex = (n: number, bytes = 32) => `0x${n.toString(16).padStart(bytes * 2, "0")}` as Hex;
let counter = 1;
const authorization = (): Authorization =>
  ({
    from: hex(counter, 20),
    to: hex(0xbeef, 20),
    token: hex(0x70ce, 20),
    value: 1000n,
    validAfter: 0n,
    validBefore: 2n ** 40n,
    nonce: hex(counter++),
    signature: `0x${"11".repeat(65)}`,
  }) as unknown as Authorization;

const iso = (ms = Date.now()) => new Date(ms).toISOString();

for (const backend of BACKENDS) {
  describe(`${backend.name}: the outbox`, async () => {
    const { outbox, journal, sql, close } = await backend.open();
    closers.push(close);

    /** A payment claimed, sent and concluded through the real journal. */
    async function concluded(status: "success" | "failed") {
      const auth = authorization();
      const claimed = (await journal.claim(settlementOf("bsc", auth, hex(counter + 1000)))) as {
        record: { id: number };
      };
      const id = claimed.record.id;
      await journal.markSent(id, hex(id + 5000), "0x02");
      await journal.markOutcome(id, { status, txHash: hex(id + 5000), blockNumber: 7 });
      return String(id);
    }

    test("a concluded payment is one event, written with its status change; a claim or a send is none", async () => {
      const before = (await outbox.waitingEvents(1000)).length;
      const auth = authorization();
      const claimed = (await journal.claim(settlementOf("bsc", auth, hex(99)))) as { record: { id: number } };
      await journal.markSent(claimed.record.id, hex(1), "0x02");
      expect((await outbox.waitingEvents(1000)).length).toBe(before);
      await journal.markOutcome(claimed.record.id, { status: "success", txHash: hex(1), blockNumber: 3 });
      // The same outcome written again (a reconciliation reading the same receipt) is no second event.
      await journal.markOutcome(claimed.record.id, { status: "success", txHash: hex(1), blockNumber: 3 });
      const events = (await outbox.waitingEvents(1000)).filter((e) => e.recordId === String(claimed.record.id));
      expect(events.map((e) => [e.type, e.source, e.network])).toEqual([["payment.settled", "eoa_settlements", "bsc"]]);
      const failedId = await concluded("failed");
      const failed = (await outbox.waitingEvents(1000)).filter((e) => e.recordId === failedId);
      expect(failed.map((e) => e.type)).toEqual(["payment.failed"]);
    });

    test("fan-out writes the payload and one delivery per endpoint, once, whoever does it", async () => {
      const recordId = await concluded("success");
      const [event] = (await outbox.waitingEvents(1000)).filter((e) => e.recordId === recordId);
      if (!event) throw new Error("no event");
      const now = iso();
      await Promise.all([
        outbox.fanOut(event.id, '{"a":1}', ["one", "two"], now),
        outbox.fanOut(event.id, '{"a":1}', ["one", "two"], now),
      ]);
      expect((await outbox.waitingEvents(1000)).some((e) => e.id === event.id)).toBe(false);
      const deliveries = await outbox.deliveries({ record: { source: "eoa_settlements", recordId }, limit: 10 });
      expect(deliveries.map((d) => d.endpoint).sort()).toEqual(["one", "two"]);
    });

    test("a due delivery is leased by one owner at a time; its outcome is written only under its lease", async () => {
      const recordId = await concluded("success");
      const [event] = (await outbox.waitingEvents(1000)).filter((e) => e.recordId === recordId);
      if (!event) throw new Error("no event");
      await outbox.fanOut(event.id, '{"b":2}', ["lease-test"], iso());
      const now = Date.now();
      const [a, b] = await Promise.all([
        outbox.leaseDue("owner-a", ["lease-test"], iso(now), iso(now + 60_000), 10),
        outbox.leaseDue("owner-b", ["lease-test"], iso(now), iso(now + 60_000), 10),
      ]);
      expect(a.length + b.length).toBe(1);
      const [leased] = [...a, ...b];
      if (!leased) throw new Error("nothing leased");
      expect(leased.event.payload).toBe('{"b":2}');
      const owner = a.length === 1 ? "owner-a" : "owner-b";
      const stranger = owner === "owner-a" ? "owner-b" : "owner-a";
      const delivered = { status: "delivered" as const, nextAttemptAt: iso(), lastStatus: 200, lastError: null };
      await outbox.recordAttempt(leased.id, stranger, delivered, iso());
      expect((await outbox.deliveries({ endpoint: "lease-test", limit: 10 }))[0]?.status).toBe("pending");
      await outbox.recordAttempt(leased.id, owner, delivered, iso());
      expect((await outbox.deliveries({ endpoint: "lease-test", limit: 10 }))[0]).toMatchObject({
        status: "delivered",
        attempts: 1,
        lastStatus: 200,
      });
      // An expired lease is taken over: a killed instance's delivery is not lost.
      const replayed = Date.now();
      await outbox.replay(leased.id, iso(replayed));
      const later = replayed + 10;
      expect((await outbox.leaseDue("dies", ["lease-test"], iso(later), iso(later + 1), 10)).length).toBe(1);
      expect((await outbox.leaseDue("too-early", ["lease-test"], iso(later), iso(later + 60_000), 10)).length).toBe(0);
      expect(
        (await outbox.leaseDue("takes-over", ["lease-test"], iso(later + 2), iso(later + 60_000), 10)).length,
      ).toBe(1);
    });

    test("a disabled endpoint's deliveries are not leased until it is enabled", async () => {
      const recordId = await concluded("failed");
      const [event] = (await outbox.waitingEvents(1000)).filter((e) => e.recordId === recordId);
      if (!event) throw new Error("no event");
      await outbox.fanOut(event.id, "{}", ["gone"], iso());
      await outbox.setEndpointDisabled("gone", { at: iso(), reason: "answered 410 Gone" });
      expect(await outbox.leaseDue("x", ["gone"], iso(Date.now() + 1000), iso(Date.now() + 60_000), 10)).toEqual([]);
      await outbox.setEndpointDisabled("gone", null);
      expect((await outbox.leaseDue("x", ["gone"], iso(Date.now() + 1000), iso(Date.now() + 60_000), 10)).length).toBe(
        1,
      );
    });

    test("an alert is raised once per crossing, whoever reads it, and again after it recovered", async () => {
      const key = `executor.low_balance:bsc:${hex(counter++, 20)}`;
      const reads = await Promise.all([1, 2, 3].map(() => outbox.crossAlert(key, true, 10n, iso())));
      expect(reads.filter((crossing) => crossing !== undefined)).toEqual([1]);
      expect(await outbox.crossAlert(key, true, 10n, iso())).toBeUndefined();
      await outbox.crossAlert(key, false, 11n, iso());
      expect(await outbox.crossAlert(key, true, 12n, iso())).toBe(2);
    });

    test("a reading of a block older than the alert's last change changes nothing", async () => {
      const key = `paymaster.low_deposit:bsc:${hex(counter++, 20)}`;
      expect(await outbox.crossAlert(key, true, 20n, iso())).toBe(1);
      // A lagging node's reading from before the drop must not re-arm it: the next low reading would raise again.
      await outbox.crossAlert(key, false, 19n, iso());
      expect(await outbox.crossAlert(key, true, 21n, iso())).toBeUndefined();
      // Topped up at block 22: re-armed; a low reading of block 21 arriving late raises nothing.
      await outbox.crossAlert(key, false, 22n, iso());
      expect(await outbox.crossAlert(key, true, 21n, iso())).toBeUndefined();
      expect(await outbox.crossAlert(key, true, 23n, iso())).toBe(2);
    });

    test("the purge deletes old events with their deliveries, page by page, and nothing newer", async () => {
      const recordId = await concluded("success");
      const [event] = (await outbox.waitingEvents(1000)).filter((e) => e.recordId === recordId);
      if (!event) throw new Error("no event");
      await outbox.fanOut(event.id, "{}", ["purge-test"], iso());
      const total = async () =>
        Number(((await sql("SELECT count(*) AS n FROM webhook_events")) as { n: unknown }[])[0]?.n);
      const all = await total();
      expect(await outbox.purge(iso(Date.now() - 3_600_000), 100)).toBe(0);
      let purged = 0;
      for (let page = 2; page === 2; purged += page) page = await outbox.purge(iso(Date.now() + 1000), 2);
      expect(purged).toBe(all);
      expect(await total()).toBe(0);
      expect(await outbox.deliveries({ endpoint: "purge-test", limit: 10 })).toEqual([]);
    });
  });
}
