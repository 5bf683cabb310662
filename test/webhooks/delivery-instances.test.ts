// Three instances on one PostgreSQL share the outbox: each attempt is made by one instance at a time (row leases),
// and SIGKILL of the instance delivering loses nothing: its leased deliveries are sent again by the others once
// their leases run out, and the receiver, deduplicating by webhook-id, sees each event exactly once. Real processes
// (`bun src/main.ts`), real devnet, real PostgreSQL, a real HTTP receiver verifying with standardwebhooks.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deliveryLeaseMs } from "../../src/webhooks/webhooks";
import { type ServiceProcess, startServiceProcess } from "../ops/service-process";
import { createTestDatabase } from "../support/postgres";
import { until } from "../support/until";
import { newWebhookSecret } from "../support/webhook-receiver";
import { recordingReceiver, requestsOver, settledPayment, webhookAdmin } from "./delivery-support";

const dir = mkdtempSync(join(tmpdir(), "relay402-webhook-instances-"));
const started: ServiceProcess[] = [];
const stops: (() => void)[] = [];
let databaseUrl = "";
beforeAll(async () => {
  databaseUrl = await createTestDatabase("webhook_instances");
});
afterAll(async () => {
  for (const service of started.splice(0)) await service.kill();
  for (const stop of stops) stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Longer than the receiver holds an attempt while the test finds and kills an instance, even on a loaded machine. */
const TIMEOUT_MS = 8_000;
/** A killed instance's deliveries are retried once their leases run out: deliveryLeaseMs(timeoutMs) after they were leased (twice the timeout here). */
const LEASE_MS = deliveryLeaseMs(TIMEOUT_MS);
const TEST_EVENTS = 6;

/** Which of `pids` holds the local end of the TCP connection from 127.0.0.1:`port` (Linux's /proc). */
function pidOfConnection(port: number, pids: number[]): number | undefined {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  const inodes = new Set(
    readFileSync("/proc/net/tcp", "utf8")
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((columns) => columns[1] === `0100007F:${hexPort}`)
      .map((columns) => `socket:[${columns[9]}]`),
  );
  // A process gone, or a descriptor closed while read, holds nothing.
  const link = (path: string) => {
    try {
      return readlinkSync(path);
    } catch {
      return "";
    }
  };
  const holds = (pid: number) => {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => inodes.has(link(`/proc/${pid}/fd/${fd}`)));
    } catch {
      return false;
    }
  };
  return pids.find(holds);
}

describe("three instances on one PostgreSQL", () => {
  test(
    "SIGKILL of the instance delivering: every event once after dedupe, no attempt made twice at once",
    async () => {
      const secret = newWebhookSecret();
      let holding = true;
      let pids: number[] = [];
      /** Which instance sent each attempt, read while its connection is open. */
      const senders = new Map<string, number[]>();
      const receiver = recordingReceiver(secret, async (delivery) => {
        const sender = pidOfConnection(delivery.remotePort, pids) ?? 0;
        senders.set(delivery.id, [...(senders.get(delivery.id) ?? []), sender]);
        // Every attempt waits while the test finds and kills an instance with one in flight.
        await until("the kill", () => !holding, { timeoutMs: 30_000, pollMs: 20 });
        return 200;
      });
      stops.push(receiver.stop);
      const options = {
        databaseUrl,
        logRequests: false,
        rateLimitPerMinute: 1_000_000,
        keyLeasesPerInstance: 1,
        webhooks: {
          endpoints: [{ id: "shop", url: receiver.url, secret: newWebhookSecret() }],
          timeoutMs: TIMEOUT_MS,
          retryScheduleSeconds: [0.5],
          pollMs: 50,
        },
      };
      const instances: ServiceProcess[] = [];
      for (let i = 0; i < 3; i++) {
        const instance = await startServiceProcess(dir, options, { WEBHOOK_SECRET_SHOP: secret });
        started.push(instance);
        instances.push(instance);
      }
      pids = instances.map((instance) => instance.pid);
      const admins = instances.map((instance) => webhookAdmin(requestsOver(instance.url), instance.adminApiKey));

      // Events raised on every instance: a payment settled by two of them, test events by each.
      const payments = await Promise.all(
        instances
          .slice(0, 2)
          .map((instance) => settledPayment((path, body) => requestsOver(instance.url)("POST", path, body))),
      );
      for (let i = 0; i < TEST_EVENTS; i++) expect((await admins[i % 3]!.test("shop")).status).toBe(200);
      const events = payments.length + TEST_EVENTS;

      await until("deliveries in flight", () => receiver.held.length >= 2, { timeoutMs: 20_000 });
      const delivering = senders.get(receiver.held[0]!.id)?.[0];
      const doomed = instances.find((instance) => instance.pid === delivering) as ServiceProcess;
      expect(doomed).toBeDefined();
      doomed.child.kill("SIGKILL");
      expect((await doomed.exited).signal).toBe("SIGKILL");
      const killedAt = Date.now();
      // The doomed instance's attempts are answered now, to a closed connection: the receiver handled them, the
      // database never heard.
      holding = false;

      const survivor = admins[instances.indexOf(instances.find((instance) => instance !== doomed)!)]!;
      let deliveries: any[] = [];
      await until(
        "every delivery done by the surviving instances",
        async () => {
          deliveries = (await survivor.deliveries()).body.deliveries;
          return deliveries.length === events && deliveries.every((delivery) => delivery.status === "delivered");
        },
        { timeoutMs: LEASE_MS + 20_000, pollMs: 200 },
      );

      expect(receiver.unique()).toHaveLength(events);
      for (const paymentId of payments)
        expect(receiver.of("payment.settled", (data) => data.paymentId === paymentId)).toHaveLength(1);
      expect(receiver.of("webhook.test")).toHaveLength(TEST_EVENTS);
      // One attempt at a time per message, across the three instances.
      expect(receiver.overlaps).toEqual([]);
      expect(receiver.rejected).toEqual([]);
      // Every attempt's sender is known: one of the three instances.
      const sent = [...senders.values()].flat();
      expect(sent.every((pid) => pids.includes(pid))).toBe(true);
      const heldIds = new Set([...senders].filter(([, by]) => by.includes(doomed.pid)).map(([id]) => id));
      expect(heldIds.size).toBeGreaterThan(0);
      for (const [id, by] of senders) {
        const attempts = receiver.attemptsOf(id);
        if (!heldIds.has(id)) {
          // Delivered by a surviving instance, once.
          expect(by).toHaveLength(1);
          continue;
        }
        // The copy the killed instance sent, then a survivor's retry once its lease ran out.
        expect(by).toHaveLength(2);
        expect(by[1]).not.toBe(doomed.pid);
        // Not before the lease taken just before the first copy reached the receiver ran out.
        const [first, retry] = attempts.map((attempt) => attempt.at).sort((a, b) => a - b);
        expect((retry ?? 0) - (first ?? 0)).toBeGreaterThan(LEASE_MS - 1_000);
      }
      for (const delivery of deliveries) {
        const retried = heldIds.has(`msg_${delivery.eventId}`);
        expect(delivery).toMatchObject({ lastStatus: 200, attempts: 1 });
        // The killed instance's attempt was never recorded: its lease ran out and a survivor made the only recorded one.
        if (retried) expect(Date.parse(delivery.deliveredAt)).toBeGreaterThan(killedAt);
      }
      for (const instance of instances.filter((instance) => instance !== doomed)) {
        instance.child.kill("SIGTERM");
        expect(await instance.exited).toEqual({ code: 0, signal: null });
        expect(instance.output()).not.toContain(secret.slice("whsec_".length));
      }
    },
    LEASE_MS + 120_000,
  );
});
