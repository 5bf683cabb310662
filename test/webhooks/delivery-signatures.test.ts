// A delivery captured on the way and re-sent, forged or replayed, fails the receiver's standardwebhooks check; a
// replay within the check's 5 minutes is caught by the receiver's deduplication. Endpoints' secrets (and their
// URLs' tokens) never reach a log line. Real devnet, real SQLite, real HTTP receivers.
import { afterAll, describe, expect, test } from "bun:test";
import { freePort } from "../../scripts/devnet/ports";
import { webhookHeaders } from "../../src/webhooks/signature";
import { trackServices } from "../support/service";
import { until } from "../support/until";
import { newWebhookSecret, type ReceivedDelivery } from "../support/webhook-receiver";
import { recordingReceiver, settledPayment, webhookAdmin } from "./delivery-support";

const services = trackServices();
const secret = newWebhookSecret();
const receiver = recordingReceiver(secret, () => 200);
const goneSecret = newWebhookSecret();
const gone = recordingReceiver(goneSecret, () => 410);
const downSecret = newWebhookSecret();
const downPort = await freePort();
afterAll(() => {
  services.stopAll();
  receiver.stop();
  gone.stop();
});

const logs: string[] = [];
const service = services.start(
  {
    logRequests: true,
    webhooks: {
      endpoints: [
        { id: "shop", url: receiver.url, secret },
        { id: "gone", url: gone.url, secret: goneSecret },
        // Nothing listens there: every attempt fails to connect, with a token in the URL to keep out of the logs.
        {
          id: "down",
          url: `http://user:url-password-31@127.0.0.1:${downPort}/hooks?token=url-token-31`,
          secret: downSecret,
        },
      ],
      retryScheduleSeconds: [0.2],
      retryLimitSeconds: 1,
      pollMs: 50,
    },
  },
  undefined,
  (line) => logs.push(line),
);
const admin = webhookAdmin(service.request, service.config.adminApiKey);

/** Sends a captured delivery to the receiver again, as someone on the way could. */
const resend = (delivery: ReceivedDelivery, body: string, headers: Partial<Record<string, string>> = {}) =>
  fetch(receiver.url, {
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      "webhook-id": delivery.id,
      "webhook-timestamp": delivery.timestamp,
      "webhook-signature": delivery.signature,
      ...headers,
    },
  }).then((response) => response.status);

let captured: ReceivedDelivery;

describe("a captured delivery sent again", () => {
  test("with its body changed fails verification and is not counted", async () => {
    const paymentId = await settledPayment(service.post);
    await until("the payment.settled delivery", () => receiver.of("payment.settled").length === 1);
    captured = receiver.of("payment.settled")[0] as ReceivedDelivery;
    expect(captured.data.paymentId).toBe(paymentId);
    const forged = captured.body.replace(/"amount":"(\d+)"/, (_, amount) => `"amount":"${BigInt(amount) * 100n}"`);
    expect(forged).not.toBe(captured.body);
    expect(await resend(captured, forged)).toBe(401);
    const otherEvent = captured.body.replace('"payment.settled"', '"payment.failed"');
    expect(await resend(captured, otherEvent)).toBe(401);
    expect(receiver.rejected).toHaveLength(2);
    expect(receiver.verified).toHaveLength(1);
  });

  test("with an old timestamp fails verification, whether re-signed or not", async () => {
    const sixMinutesAgo = Math.floor(Date.now() / 1000) - 6 * 60;
    // Its own signature under an older timestamp: the signature no longer matches.
    expect(await resend(captured, captured.body, { "webhook-timestamp": String(sixMinutesAgo) })).toBe(401);
    // A delivery genuinely signed 6 minutes ago (the service's signer, as it would have then): too old.
    const old = webhookHeaders(secret, captured.id, sixMinutesAgo, captured.body);
    expect(await resend(captured, captured.body, old)).toBe(401);
    // Signed by someone without the secret.
    const forged = webhookHeaders(newWebhookSecret(), captured.id, Math.floor(Date.now() / 1000), captured.body);
    expect(await resend(captured, captured.body, forged)).toBe(401);
    expect(receiver.rejected).toHaveLength(5);
    expect(receiver.unique()).toHaveLength(1);
  });

  test("unchanged within 5 minutes verifies, and deduplication by webhook-id makes it one event", async () => {
    expect(await resend(captured, captured.body)).toBe(200);
    expect(receiver.verified).toHaveLength(2);
    expect(receiver.unique()).toHaveLength(1);
    expect(receiver.unique()[0]?.id).toBe(captured.id);
  });
});

describe("the endpoints' secrets", () => {
  test("never reach a log line, through deliveries, failures, 410s, dead letters and admin routes", async () => {
    await admin.test("shop");
    await admin.test("gone");
    await admin.test("down");
    await until("the 410 disabled its endpoint", () => logs.some((line) => line.includes("webhook_endpoint_disabled")));
    await until("the unreachable endpoint's delivery dead-lettered", () =>
      logs.some((line) => line.includes("webhook_dead_lettered") && line.includes('"endpoint":"down"')),
    );
    await admin.endpoints();
    await admin.deliveries();
    const [down] = (await admin.deliveries({ endpoint: "down", status: "dead" })).body.deliveries;
    expect(down).toMatchObject({ lastStatus: null, lastError: "connection failed" });
    expect(logs.length).toBeGreaterThan(5);
    const text = logs.join("");
    expect(text).toContain(`"route":"/admin/webhooks/test"`);
    for (const value of [secret, goneSecret, downSecret, "url-password-31", "url-token-31"]) {
      expect(text).not.toContain(value);
      expect(text).not.toContain(value.replace(/^whsec_/, ""));
    }
  }, 20_000);
});
