// A restart on SQLite: the service process is killed (SIGKILL) with one delivery in flight and others failing, and
// started again on the same file; every event reaches the receiver, exactly once after deduplication by webhook-id.
// The endpoint's secret comes from WEBHOOK_SECRET_SHOP and never reaches the process's output. Real processes
// (`bun src/main.ts`), real devnet, real SQLite file, a real HTTP receiver verifying with standardwebhooks.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deliveryLeaseMs } from "../../src/webhooks/webhooks";
import { type ServiceProcess, startServiceProcess } from "../ops/service-process";
import { until } from "../support/until";
import { newWebhookSecret } from "../support/webhook-receiver";
import { recordingReceiver, requestsOver, settledPayment, webhookAdmin } from "./delivery-support";

const dir = mkdtempSync(join(tmpdir(), "relay402-webhook-restart-"));
const started: ServiceProcess[] = [];
const stops: (() => void)[] = [];
afterAll(async () => {
  for (const service of started.splice(0)) await service.kill();
  for (const stop of stops) stop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A delivery in flight when the process dies is retried once its lease runs out: deliveryLeaseMs(timeoutMs), twice the timeout here. The timeout
 * outlasts the receiver's hold, so the delivery is still in flight when the process is killed.
 */
const TIMEOUT_MS = 10_000;
const LEASE_MS = deliveryLeaseMs(TIMEOUT_MS);

describe("a restart on SQLite", () => {
  test(
    "SIGKILL with a delivery in flight and others failing: each event arrives once after dedupe",
    async () => {
      const secret = newWebhookSecret();
      let phase: "down" | "up" = "down";
      const receiver = recordingReceiver(secret, async (delivery) => {
        if (phase === "up") return 200;
        // The payment's delivery is held until the process is dead; the receiver then handles it (the sender never
        // hears so): the retry after the restart is the same message, which deduplication drops.
        if (delivery.type === "payment.settled") {
          await until("the restart", () => phase === "up", { timeoutMs: 60_000, pollMs: 50 });
          return 200;
        }
        return 500;
      });
      stops.push(receiver.stop);
      const databasePath = join(dir, "relay402.sqlite");
      const webhooks = {
        // The file's secret is a placeholder: the process signs with the variable's.
        endpoints: [{ id: "shop", url: receiver.url, secret: newWebhookSecret() }],
        timeoutMs: TIMEOUT_MS,
        retryScheduleSeconds: [0.5],
        pollMs: 50,
      };
      const env = { WEBHOOK_SECRET_SHOP: secret };
      const options = { databasePath, webhooks, logRequests: false, rateLimitPerMinute: 1_000_000 };

      const first = await startServiceProcess(dir, options, env);
      started.push(first);
      const firstAdmin = webhookAdmin(requestsOver(first.url), first.adminApiKey);
      const paymentId = await settledPayment((path, body) => requestsOver(first.url)("POST", path, body));
      for (let i = 0; i < 3; i++) expect((await firstAdmin.test("shop")).status).toBe(200);
      await until(
        "the payment's delivery held by the receiver and every test event failing",
        () =>
          receiver.held.some((delivery) => delivery.type === "payment.settled") &&
          new Set(receiver.attempts.map((attempt) => attempt.id)).size === 3,
        { timeoutMs: 20_000 },
      );
      // In flight: leased, not yet recorded as an attempt.
      const [inFlight] = (await firstAdmin.deliveries({ paymentId })).body.deliveries;
      expect(inFlight).toMatchObject({ status: "pending", attempts: 0 });
      first.child.kill("SIGKILL");
      expect((await first.exited).signal).toBe("SIGKILL");

      phase = "up";
      const second = await startServiceProcess(dir, options, env);
      started.push(second);
      const secondAdmin = webhookAdmin(requestsOver(second.url), second.adminApiKey);
      let deliveries: any[] = [];
      await until(
        "every delivery done after the restart",
        async () => {
          deliveries = (await secondAdmin.deliveries()).body.deliveries;
          return deliveries.length === 4 && deliveries.every((delivery) => delivery.status === "delivered");
        },
        { timeoutMs: LEASE_MS + 20_000, pollMs: 200 },
      );
      for (const delivery of deliveries) expect(delivery.lastStatus).toBe(200);
      expect(receiver.of("webhook.test")).toHaveLength(3);

      const payment = receiver.of("payment.settled")[0];
      expect(payment?.data.paymentId).toBe(paymentId);
      // Held by the dead process, then sent again by the new one once the lease ran out: two copies, one event.
      const paymentAttempts = receiver.attemptsOf(payment?.id as string);
      expect(paymentAttempts).toHaveLength(2);
      // Not before the lease taken just before the first copy reached the receiver ran out.
      expect((paymentAttempts[1]?.at ?? 0) - (paymentAttempts[0]?.at ?? 0)).toBeGreaterThan(LEASE_MS - 1_000);
      expect(receiver.unique()).toHaveLength(4);
      expect(receiver.overlaps).toEqual([]);
      expect(receiver.rejected).toEqual([]);

      second.child.kill("SIGTERM");
      expect(await second.exited).toEqual({ code: 0, signal: null });
      // The secret came from the environment: in no config file, and in neither process's output.
      const written = readdirSync(dir)
        .filter((name) => name.endsWith(".json"))
        .map((name) => readFileSync(join(dir, name), "utf8"));
      expect(written.length).toBeGreaterThan(0);
      for (const text of [...written, first.output(), second.output()]) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain(secret.slice("whsec_".length));
      }
    },
    LEASE_MS + 90_000,
  );

  test("SIGTERM with a delivery in flight: the attempt finishes and is recorded, so the next start sends no copy", async () => {
    const HOLD_MS = 1_500;
    const secret = newWebhookSecret();
    const receiver = recordingReceiver(secret, async () => {
      await Bun.sleep(HOLD_MS);
      return 200;
    });
    stops.push(receiver.stop);
    const options = {
      databasePath: join(dir, "graceful.sqlite"),
      webhooks: { endpoints: [{ id: "shop", url: receiver.url, secret }], timeoutMs: 5_000, pollMs: 50 },
      logRequests: false,
    };
    const first = await startServiceProcess(dir, options);
    started.push(first);
    const paymentId = await settledPayment((path, body) => requestsOver(first.url)("POST", path, body));
    await until("the delivery held by the receiver", () => receiver.held.length === 1);
    first.child.kill("SIGTERM");
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(receiver.held).toEqual([]);

    const second = await startServiceProcess(dir, options);
    started.push(second);
    const [delivery] = (await webhookAdmin(requestsOver(second.url), second.adminApiKey).deliveries({ paymentId })).body
      .deliveries;
    expect(delivery).toMatchObject({ status: "delivered", attempts: 1, lastStatus: 200 });
    await Bun.sleep(1_000);
    expect(receiver.attempts).toHaveLength(1);
    expect(receiver.unique()).toHaveLength(1);
    second.child.kill("SIGTERM");
    expect(await second.exited).toEqual({ code: 0, signal: null });
  }, 60_000);
});
