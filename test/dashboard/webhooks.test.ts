// The dashboard's payment lookup and webhook counts, behind its read key, on a SQLite file and on PostgreSQL: a real
// payment on the devnet found by its id, its transaction and its payer, with the lookup's record and the deliveries
// of its event to three real receivers (one acknowledges, one keeps failing, one answers 410 Gone); per endpoint,
// pending, failing, delivered and dead counts; no endpoint's secret, URL credentials or query string in any answer.
import { afterAll, describe, expect, test } from "bun:test";
import type { Hex } from "viem";
import { configFromManifest } from "../../scripts/devnet/service-config";
import { signedPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, randomAddress, tokenBalance } from "../support/chain";
import { DASHBOARD_KEY, postgresService } from "../support/dashboard";
import { getTestDevnet } from "../support/devnet";
import { createTestDatabase } from "../support/postgres";
import { startTestService } from "../support/service";
import { until } from "../support/until";
import { newWebhookSecret, startWebhookReceiver } from "../support/webhook-receiver";

const keyed = { "x-dashboard-api-key": DASHBOARD_KEY };
const URL_TOKEN = "query-token-never-shown";
const URL_PASSWORD = "password-never-shown";

type Service = {
  post: (path: string, body: unknown) => Promise<{ status: number; body: any }>;
  get: (path: string, headers?: Record<string, string>) => Promise<{ status: number; body: any }>;
};

const secrets = { shop: newWebhookSecret(), flaky: newWebhookSecret(), gone: newWebhookSecret() };
const shop = startWebhookReceiver(secrets.shop);
const flaky = startWebhookReceiver(secrets.flaky, () => 500);
const gone = startWebhookReceiver(secrets.gone, () => 410);
afterAll(() => {
  for (const receiver of [shop, flaky, gone]) receiver.stop();
});

const withCredentials = (url: string) => `${url.replace("http://", `http://ops:${URL_PASSWORD}@`)}?token=${URL_TOKEN}`;

const overrides = {
  dashboardApiKey: DASHBOARD_KEY,
  webhooks: {
    endpoints: [
      { id: "shop", url: shop.url, secret: secrets.shop },
      { id: "flaky", url: withCredentials(flaky.url), secret: secrets.flaky },
      { id: "gone", url: gone.url, secret: secrets.gone },
    ],
    pollMs: 50,
    // One failed attempt, then a long wait: the flaky endpoint's delivery stays failing for the whole test.
    retryScheduleSeconds: [0.2, 600],
  },
};

const counts = async (service: Service) =>
  Object.fromEntries(
    (await service.get("/dashboard/api/webhooks", keyed)).body.endpoints.map((each: any) => [each.id, each.deliveries]),
  );

function checks(label: string, service: () => Service) {
  let paymentId: Hex;
  let transaction: Hex;
  let payer: Hex;

  test(`${label}: a payment is found by id, transaction and payer, with its record and its deliveries`, async () => {
    const c = chainOf("bsc");
    const unit = 10n ** BigInt(c.token.decimals);
    const from = await freshPayer("bsc");
    payer = from.address;
    await approveRelayer("bsc", from.key, 10n * unit);
    const to = randomAddress();
    const settled = await service().post(
      "/settle",
      await signedPayment({ network: "bsc", key: from.key, to, value: 2n * unit }),
    );
    expect(settled.status).toBe(200);
    paymentId = settled.body.paymentId;
    transaction = settled.body.transaction;
    // The chain says it was paid.
    expect((await c.public.getTransactionReceipt({ hash: transaction })).status).toBe("success");
    expect(await tokenBalance("bsc", c.token.address, to)).toBe(2n * unit);

    await until("each endpoint's outcome", async () => {
      const now = await counts(service());
      return now.shop?.delivered >= 1 && now.flaky?.failing >= 1 && now.gone?.dead >= 1;
    });
    expect(shop.of("payment.settled", (data) => data.paymentId === paymentId)).toHaveLength(1);

    const byId = await service().get(`/dashboard/api/payments?q=${paymentId}`, keyed);
    expect(byId.status).toBe(200);
    expect(byId.body.payments).toHaveLength(1);
    const [found] = byId.body.payments;
    // The record is the lookup's, field for field.
    expect(found.record).toEqual((await service().get(`/payments/${paymentId}`)).body);
    expect(found.record).toMatchObject({ status: "settled", transaction, network: "bsc" });
    expect(found.explorerUrl).toContain(transaction);
    const byEndpoint = Object.fromEntries(found.deliveries.map((each: any) => [each.endpoint, each]));
    expect(Object.keys(byEndpoint).sort()).toEqual(["flaky", "gone", "shop"]);
    expect(byEndpoint.shop).toMatchObject({
      type: "payment.settled",
      status: "delivered",
      attempts: 1,
      lastStatus: 200,
    });
    expect(byEndpoint.gone).toMatchObject({ status: "dead", lastStatus: 410 });
    expect(byEndpoint.flaky).toMatchObject({ status: "pending", lastError: expect.any(String) });
    expect(byEndpoint.flaky.attempts).toBeGreaterThanOrEqual(1);
    // The webhook-id a receiver saw is the delivery's event.
    expect(shop.of("payment.settled", (data) => data.paymentId === paymentId)[0]?.id).toBe(
      `msg_${byEndpoint.shop.eventId}`,
    );

    const byTransaction = await service().get(
      `/dashboard/api/payments?q=${transaction.toUpperCase().replace("0X", "0x")}`,
      keyed,
    );
    expect(byTransaction.body.payments.map((each: any) => each.record.paymentId)).toEqual([paymentId]);
    const byPayer = await service().get(`/api/v1/dashboard/api/payments?q=${payer.toLowerCase()}`, keyed);
    expect(byPayer.body.payments.map((each: any) => each.record.paymentId)).toEqual([paymentId]);
    expect(byPayer.body.payments[0].deliveries).toHaveLength(3);
    // Nothing of an unknown id, transaction or payer.
    for (const q of [`0x${"ab".repeat(32)}`, randomAddress()])
      expect((await service().get(`/dashboard/api/payments?q=${q}`, keyed)).body).toEqual({ payments: [] });
  }, 60_000);

  test(`${label}: per endpoint, pending, failing, delivered and dead deliveries; no secret, credentials or query`, async () => {
    const answer = await service().get("/dashboard/api/webhooks", keyed);
    expect(answer.status).toBe(200);
    const byId = Object.fromEntries(answer.body.endpoints.map((each: any) => [each.id, each]));
    expect(byId.shop.deliveries).toMatchObject({ pending: 0, failing: 0, dead: 0 });
    expect(byId.shop.deliveries.delivered).toBeGreaterThanOrEqual(1);
    expect(byId.flaky.deliveries).toMatchObject({ delivered: 0, dead: 0 });
    expect(byId.flaky.deliveries.failing).toBe(byId.flaky.deliveries.pending);
    expect(byId.gone.deliveries).toMatchObject({ pending: 0, failing: 0, delivered: 0 });
    expect(byId.gone.disabled).toMatchObject({ reason: "answered 410 Gone" });
    expect(byId.flaky.url).toBe(flaky.url);
    const text = JSON.stringify(answer.body);
    for (const hidden of [URL_TOKEN, URL_PASSWORD, "whsec_", ...Object.values(secrets)])
      expect(text).not.toContain(hidden);
    const found = JSON.stringify((await service().get(`/dashboard/api/payments?q=${paymentId}`, keyed)).body);
    for (const hidden of [URL_TOKEN, URL_PASSWORD, ...Object.values(secrets)]) expect(found).not.toContain(hidden);
  });

  test(`${label}: the read key is required, and a search that names nothing is a validation_error on q`, async () => {
    for (const path of [`/dashboard/api/payments?q=${paymentId}`, "/dashboard/api/webhooks"]) {
      expect((await service().get(path)).status).toBe(401);
      expect((await service().get(path, { "x-dashboard-api-key": "not-the-dashboard-key-0000" })).status).toBe(401);
    }
    for (const q of ["", "0x1234", "payer", `${paymentId}00`, `0x${"zz".repeat(20)}`, "'%20OR%201=1--"]) {
      const refused = await service().get(`/dashboard/api/payments?q=${q}`, keyed);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: "validation_error", details: { field: "q" } });
      expect(refused.body.doc_url).toContain("validation_error");
    }
    const missing = await service().get("/dashboard/api/payments", keyed);
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: "validation_error", details: { field: "q" } });
  });
}

describe("SQLite", () => {
  const service = startTestService(overrides as never);
  afterAll(() => service.stop());
  checks("SQLite", () => service);
});

describe("PostgreSQL", () => {
  let service: Awaited<ReturnType<typeof postgresService>>;
  let other: Awaited<ReturnType<typeof postgresService>>;
  afterAll(async () => {
    await service?.stop();
    await other?.stop();
  });
  test("two instances start on one database", async () => {
    const config = configFromManifest(getTestDevnet().devnet.manifest, {
      ...overrides,
      rateLimitPerMinute: 1_000_000,
      logRequests: false,
      databasePath: ":memory:",
    } as never);
    const url = await createTestDatabase("dashboard_webhooks");
    service = await postgresService(config, url);
    other = await postgresService(config, url);
  });
  checks("PostgreSQL", () => service);

  test("the other instance shows the same payments and counts", async () => {
    const [mine, theirs] = await Promise.all([counts(service), counts(other)]);
    expect(theirs).toEqual(mine);
    const payments = (await service.get("/dashboard/api/webhooks", keyed)).body;
    expect((await other.get("/dashboard/api/webhooks", keyed)).body).toEqual(payments);
  });
});
