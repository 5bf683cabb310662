// Where deliveries stop: an endpoint answering 410 Gone is disabled until an admin enables it again, and a delivery
// still failing at the end of its retry window is dead-lettered until an admin replays it. Real devnet, real
// SQLite, real HTTP receivers verifying with standardwebhooks.
import { afterAll, describe, expect, test } from "bun:test";
import { trackServices } from "../support/service";
import { until } from "../support/until";
import { newWebhookSecret } from "../support/webhook-receiver";
import { recordingReceiver, settledPayment, webhookAdmin } from "./delivery-support";

const services = trackServices();
const stops: (() => void)[] = [];
afterAll(() => {
  services.stopAll();
  for (const stop of stops) stop();
});

const idsOf = (attempts: { id: string }[]) => [...new Set(attempts.map((attempt) => attempt.id))];

describe("an endpoint answering 410 Gone", () => {
  test("is disabled: nothing more is sent to it until enabled, then its pending deliveries resume", async () => {
    const RETRY_SECONDS = 2;
    let mode: "failing" | "gone" | "ok" = "failing";
    let failingIds: string[] = [];
    const secret = newWebhookSecret();
    const receiver = recordingReceiver(secret, (delivery) => {
      if (mode === "ok") return 200;
      // The messages already failing keep failing; a new one hears that the endpoint is gone.
      return mode === "gone" && !failingIds.includes(delivery.id) ? 410 : 500;
    });
    stops.push(receiver.stop);
    const service = services.start({
      webhooks: {
        endpoints: [{ id: "gone", url: receiver.url, secret }],
        retryScheduleSeconds: [RETRY_SECONDS],
        pollMs: 50,
      },
    });
    const admin = webhookAdmin(service.request, service.config.adminApiKey);

    await admin.test("gone");
    await admin.test("gone");
    await until("two messages failing", () => idsOf(receiver.attempts).length === 2);
    failingIds = idsOf(receiver.attempts);
    mode = "gone";
    await admin.test("gone");
    await until("the third message answered 410", () => idsOf(receiver.attempts).length === 3);
    const goneId = idsOf(receiver.attempts).find((id) => !failingIds.includes(id)) as string;

    let endpoint: any;
    // The endpoint is disabled, then the attempt recorded: wait for both.
    await until("the endpoint disabled", async () => {
      [endpoint] = (await admin.endpoints()).body.endpoints;
      return endpoint?.disabled !== null && endpoint?.deliveries.dead === 1;
    });
    expect(endpoint.disabled).toMatchObject({ reason: "answered 410 Gone" });
    expect(endpoint.deliveries).toMatchObject({ pending: 2, dead: 1, delivered: 0 });
    const [gone] = (await admin.deliveries({ status: "dead" })).body.deliveries;
    expect(gone).toMatchObject({ eventId: goneId.replace(/^msg_/, ""), lastStatus: 410, lastError: "answered 410" });

    // Past the failing messages' retry time: no attempt reaches a disabled endpoint, and an event raised meanwhile
    // is not queued for it (it said it is gone). A test event, which could never go, is refused.
    const attemptsWhenDisabled = receiver.attempts.length;
    const paymentId = await settledPayment(service.post);
    const refused = await admin.test("gone");
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: "validation_error", details: { field: "endpoint" } });
    expect(refused.body.message).toContain("POST /admin/webhooks/enable");
    await Bun.sleep(RETRY_SECONDS * 1000 + 1_000);
    expect((await admin.deliveries({ paymentId })).body.deliveries).toEqual([]);
    expect(receiver.attempts).toHaveLength(attemptsWhenDisabled);
    expect((await admin.deliveries({ endpoint: "gone" })).body.deliveries).toHaveLength(3);

    mode = "ok";
    expect((await admin.enable("gone")).status).toBe(200);
    await until("the pending deliveries delivered", () => receiver.unique().length === 2);
    [endpoint] = (await admin.endpoints()).body.endpoints;
    expect(endpoint.disabled).toBeNull();
    expect(endpoint.deliveries).toMatchObject({ pending: 0, failing: 0, delivered: 2, dead: 1 });
    expect(receiver.unique().map((delivery) => delivery.id)).toEqual(expect.arrayContaining(failingIds));
    // The 410'd delivery stays dead (an admin may replay it); the rest go on.
    expect(receiver.attemptsOf(goneId)).toHaveLength(1);
    await admin.test("gone");
    await until("a new event delivered", () => receiver.unique().length === 3);
    expect(receiver.rejected).toEqual([]);
  }, 30_000);

  test("enable names an unknown endpoint in details.field", async () => {
    const service = services.start({ webhooks: { endpoints: [] } });
    const admin = webhookAdmin(service.request, service.config.adminApiKey);
    const refused = await admin.enable("nowhere");
    expect(refused.status).toBe(404);
    expect(refused.body).toMatchObject({ code: "not_found", details: { field: "endpoint" } });
  });
});

describe("a delivery failing past its retry window", () => {
  test("is dead-lettered, tried no more, and delivered by a replay under the same webhook-id", async () => {
    let answer = 500;
    const secret = newWebhookSecret();
    const receiver = recordingReceiver(secret, () => answer);
    stops.push(receiver.stop);
    const service = services.start({
      webhooks: {
        endpoints: [{ id: "down", url: receiver.url, secret }],
        retryScheduleSeconds: [0.3],
        retryLimitSeconds: 1,
        pollMs: 50,
      },
    });
    const admin = webhookAdmin(service.request, service.config.adminApiKey);
    await admin.test("down");

    let dead: any;
    await until("the delivery dead-lettered", async () => {
      [dead] = (await admin.deliveries({ endpoint: "down", status: "dead" })).body.deliveries;
      return dead !== undefined;
    });
    expect(dead).toMatchObject({ lastStatus: 500, lastError: "answered 500", deliveredAt: null });
    expect(dead.attempts).toBeGreaterThanOrEqual(2);
    // Within the window: the first attempt, then one every 0.3 s until a second past the event.
    expect(dead.attempts).toBeLessThanOrEqual(5);
    const [endpoint] = (await admin.endpoints()).body.endpoints;
    expect(endpoint.deliveries).toMatchObject({ pending: 0, failing: 0, dead: 1 });
    const attemptsWhenDead = receiver.attempts.length;
    expect(attemptsWhenDead).toBe(dead.attempts);
    await Bun.sleep(1_000);
    expect(receiver.attempts).toHaveLength(attemptsWhenDead);

    answer = 200;
    expect((await admin.replay(dead.id)).status).toBe(200);
    await until("the replayed delivery acknowledged", () => receiver.unique().length === 1);
    expect(receiver.unique()[0]?.id).toBe(`msg_${dead.eventId}`);
    const [replayed] = (await admin.deliveries({ endpoint: "down" })).body.deliveries;
    expect(replayed).toMatchObject({ id: dead.id, status: "delivered", lastStatus: 200, lastError: null });

    const unknown = await admin.replay(987_654);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: "not_found", details: { field: "deliveryId" } });
    const malformed = await admin.replay("one");
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: "validation_error", details: { field: "deliveryId" } });
  }, 30_000);
});

describe("a replay of a delivery in flight", () => {
  test("waits for that attempt: the message is never in flight twice at once", async () => {
    const HOLD_MS = 2_000;
    const secret = newWebhookSecret();
    const receiver = recordingReceiver(secret, async () => {
      await Bun.sleep(HOLD_MS);
      return 200;
    });
    stops.push(receiver.stop);
    const service = services.start({
      webhooks: {
        endpoints: [{ id: "held", url: receiver.url, secret }],
        timeoutMs: HOLD_MS + 3_000,
        retryScheduleSeconds: [0.2],
        pollMs: 50,
      },
    });
    const admin = webhookAdmin(service.request, service.config.adminApiKey);
    await admin.test("held");
    await until("the attempt held by the receiver", () => receiver.held.length === 1);
    const [inFlight] = (await admin.deliveries({ endpoint: "held" })).body.deliveries;
    expect((await admin.replay(inFlight.id)).status).toBe(200);

    await until("the attempt answered", async () => {
      const [delivery] = (await admin.deliveries({ endpoint: "held" })).body.deliveries;
      return delivery?.status === "delivered";
    });
    await Bun.sleep(500);
    expect(receiver.overlaps).toEqual([]);
    expect(receiver.attempts).toHaveLength(1);
    expect(receiver.unique()).toHaveLength(1);
  }, 30_000);
});
