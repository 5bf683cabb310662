// The operator's webhook routes: a test event reaches only the endpoint named, the listing's filters hold (alone and
// together), every route wants the admin key, bad input is refused naming its field, and no answer shows an
// endpoint's secret or the credentials and query of its URL. Real devnet, real SQLite, real HTTP receivers.
import { afterAll, describe, expect, test } from "bun:test";
import { trackServices } from "../support/service";
import { until } from "../support/until";
import { newWebhookSecret } from "../support/webhook-receiver";
import { recordingReceiver, settledPayment, webhookAdmin } from "./delivery-support";

const services = trackServices();
const shopSecret = newWebhookSecret();
const opsSecret = newWebhookSecret();
const shop = recordingReceiver(shopSecret, () => 200);
const ops = recordingReceiver(opsSecret, () => 200);
afterAll(() => {
  services.stopAll();
  shop.stop();
  ops.stop();
});

// The shop's URL carries a password and a token in its query, as some receivers are addressed.
const shopUrl = new URL(shop.url);
shopUrl.username = "merchant";
shopUrl.password = "url-password-9f3c";
shopUrl.search = "?token=url-token-77ab";
const service = services.start({
  webhooks: {
    endpoints: [
      { id: "shop", url: shopUrl.toString(), secret: shopSecret },
      { id: "ops", url: ops.url, secret: opsSecret },
    ],
    pollMs: 50,
  },
});
const admin = webhookAdmin(service.request, service.config.adminApiKey);
const SECRETS = [shopSecret, opsSecret, shopSecret.slice("whsec_".length), opsSecret.slice("whsec_".length)];
const URL_SECRETS = ["url-password-9f3c", "url-token-77ab"];

describe("POST /admin/webhooks/test", () => {
  test("reaches only the endpoint it names", async () => {
    expect(await admin.test("ops")).toMatchObject({ status: 200, body: { ok: true } });
    await until("the test event at ops", () => ops.of("webhook.test").length === 1);
    expect(ops.of("webhook.test")[0]?.data).toMatchObject({ endpoint: "ops" });
    await Bun.sleep(500);
    expect(shop.attempts).toEqual([]);
    const listed = (await admin.deliveries({ endpoint: "shop" })).body.deliveries;
    expect(listed).toEqual([]);
  });

  test("an unknown endpoint is 404, a malformed one 400, each naming details.field", async () => {
    const unknown = await admin.test("nowhere");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: "not_found", details: { field: "endpoint" } });
    expect(unknown.body.doc_url).toBeString();
    const malformed = await admin.test("Not An Id");
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: "validation_error", details: { field: "endpoint" } });
  });
});

describe("the admin key", () => {
  const routes: [string, string, unknown?][] = [
    ["GET", "/admin/webhooks/endpoints"],
    ["GET", "/admin/webhooks/deliveries"],
    ["POST", "/admin/webhooks/replay", { deliveryId: "1" }],
    ["POST", "/admin/webhooks/test", { endpoint: "ops" }],
    ["POST", "/admin/webhooks/enable", { endpoint: "ops" }],
  ];
  for (const [method, path, body] of routes) {
    test(`${method} ${path} is 401 without it or with a wrong one`, async () => {
      const without = await service.request(method, path, body);
      expect(without.status).toBe(401);
      expect(without.body.code).toBeString();
      const wrong = await service.request(method, path, body, { "x-admin-api-key": "not-the-admin-key-0000" });
      expect(wrong.status).toBe(401);
    });
  }

  test("a refused test event sends nothing", async () => {
    const before = ops.attempts.length;
    await service.request("POST", "/admin/webhooks/test", { endpoint: "ops" });
    await Bun.sleep(300);
    expect(ops.attempts).toHaveLength(before);
  });
});

describe("GET /admin/webhooks/deliveries", () => {
  test("filters by endpoint, status and payment, alone and together, and pages with before", async () => {
    const paymentId = await settledPayment(service.post);
    const other = await settledPayment(service.post, "base");
    await until(
      "both payments at both endpoints",
      () =>
        [shop, ops].every(
          (receiver) =>
            receiver.of("payment.settled", (data) => data.paymentId === paymentId).length === 1 &&
            receiver.of("payment.settled", (data) => data.paymentId === other).length === 1,
        ),
      { timeoutMs: 20_000 },
    );
    await until("every delivery recorded", async () =>
      (await admin.deliveries()).body.deliveries.every((delivery: any) => delivery.status === "delivered"),
    );

    const ofPayment = (await admin.deliveries({ paymentId })).body.deliveries;
    expect(ofPayment).toHaveLength(2);
    expect(ofPayment.map((delivery: any) => delivery.endpoint).sort()).toEqual(["ops", "shop"]);
    const record = (await service.get(`/payments/${paymentId}`)).body;
    for (const delivery of ofPayment) expect(delivery).toMatchObject({ type: "payment.settled", network: "bsc" });
    expect(new Set(ofPayment.map((delivery: any) => delivery.recordId)).size).toBe(1);
    expect(record.paymentId).toBe(paymentId);

    const atShop = (await admin.deliveries({ paymentId, endpoint: "shop" })).body.deliveries;
    expect(atShop.map((delivery: any) => delivery.endpoint)).toEqual(["shop"]);
    expect((await admin.deliveries({ paymentId, status: "dead" })).body.deliveries).toEqual([]);
    expect((await admin.deliveries({ paymentId, status: "delivered" })).body.deliveries).toHaveLength(2);

    const atOps = (await admin.deliveries({ endpoint: "ops" })).body.deliveries;
    expect(atOps.length).toBeGreaterThanOrEqual(3);
    expect(atOps.every((delivery: any) => delivery.endpoint === "ops")).toBe(true);
    expect((await admin.deliveries({ status: "pending" })).body.deliveries).toEqual([]);
    expect((await admin.deliveries({ status: "delivered" })).body.deliveries.length).toBeGreaterThanOrEqual(5);

    const first = (await admin.deliveries({ endpoint: "ops", limit: "1" })).body;
    expect(first.deliveries).toHaveLength(1);
    expect(first.next).toBe(first.deliveries[0].createdAt);
    const second = (await admin.deliveries({ endpoint: "ops", limit: "1", before: first.next })).body;
    expect(second.deliveries).toHaveLength(1);
    expect(second.deliveries[0].id).not.toBe(first.deliveries[0].id);
    expect(second.deliveries[0].createdAt < first.next).toBe(true);

    const badLimit = await admin.deliveries({ limit: "0" });
    expect(badLimit.status).toBe(400);
    expect(badLimit.body).toMatchObject({ code: "validation_error", details: { field: "limit" } });
    const badStatus = await admin.deliveries({ status: "lost" });
    expect(badStatus.status).toBe(400);
    expect(badStatus.body).toMatchObject({ code: "validation_error", details: { field: "status" } });
    const badPayment = await admin.deliveries({ paymentId: "0x12" });
    expect(badPayment.status).toBe(400);
    expect(badPayment.body).toMatchObject({ code: "validation_error", details: { field: "paymentId" } });
  }, 40_000);
});

describe("what the admin sees of an endpoint", () => {
  test("never its secret, nor its URL's credentials or query", async () => {
    const listed = await admin.endpoints();
    expect(listed.status).toBe(200);
    const shopView = listed.body.endpoints.find((endpoint: any) => endpoint.id === "shop");
    expect(shopView.url).toBe(`${shopUrl.protocol}//${shopUrl.host}${shopUrl.pathname}`);
    // The receiver behind the credentials was reached all the same.
    expect(shop.unique().length).toBeGreaterThan(0);
    const answers = [
      listed,
      await admin.deliveries(),
      ...(await Promise.all(
        ["/config", "/health", "/openapi/json", "/metrics"].map((path) =>
          service.get(path, { "x-admin-api-key": service.config.adminApiKey }),
        ),
      )),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      const text = JSON.stringify(answer.body);
      for (const secret of [...SECRETS, ...URL_SECRETS]) expect(text).not.toContain(secret);
    }
  });
});
