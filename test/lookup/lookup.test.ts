// The payment lookup against real payments on the devnet, on SQLite and on PostgreSQL: each payment is found by the
// id its client computes from its signed body (or its userOpHash), by its transaction and by its nonce space, and its
// record's transaction, block and gas are the chain's receipt; the dashboard shows the same id and block. A
// front-run payment reads failed with its reason. Listings need the admin key or a merchant key, which sees only
// the payments to its own payTo addresses.
import { afterAll, describe, expect, test } from "bun:test";
import { paymentIdOf } from "@relay402/client";
import { configFromManifest } from "../../scripts/devnet/service-config";
import type { ConfigInput } from "../../src/config/schema";
import { parseAuthorization } from "../../src/settlement/authorization";
import { settlementOf } from "../../src/settlement/settlement-store";
import { signedPayment } from "../support/authorization";
import { chainOf, freshPayer, randomAddress } from "../support/chain";
import { DASHBOARD_KEY, postgresService } from "../support/dashboard";
import { getTestDevnet } from "../support/devnet";
import { createTestDatabase } from "../support/postgres";
import { startTestService } from "../support/service";
import { frontRunPayment } from "./front-run";
import { expectedRecord, type Settled, settleEip3009, settleEoa, settlePermit2, settleWallet } from "./support";

const MERCHANT_KEY = "lookup-merchant-key-0001";
const BARE_MERCHANT_KEY = "lookup-bare-merchant-key-01";
/** The payee the merchant key is configured with, and another merchant's. */
const OURS = randomAddress();
const THEIRS = randomAddress();

const overrides: Partial<ConfigInput> = {
  dashboardApiKey: DASHBOARD_KEY,
  merchantApiKeys: [{ key: MERCHANT_KEY, payTo: [OURS] }, BARE_MERCHANT_KEY],
};

type Service = {
  config: { adminApiKey: string };
  post: (path: string, body: unknown) => Promise<{ status: number; body: any }>;
  get: (path: string, headers?: Record<string, string>) => Promise<{ status: number; body: any; headers: Headers }>;
};

const nonceQuery = (payment: Settled) => {
  const space = payment.nonceSpace as NonNullable<Settled["nonceSpace"]>;
  return `/payments?network=${payment.network}&contract=${space.contract}&payer=${space.payer}&nonce=${space.nonce}`;
};

function checks(label: string, service: () => Service) {
  const settled: Settled[] = [];

  test(`${label}: every kind of payment is found by its computed id, its transaction and its nonce space`, async () => {
    const post = service().post;
    settled.push(
      await settleEoa(post, "bsc", OURS),
      await settleEoa(post, "base", THEIRS),
      await settleEip3009(post),
      await settlePermit2(post),
      await settleWallet(post, "bsc", OURS),
      await settleWallet(post, "base", THEIRS),
    );
    for (const payment of settled) {
      const expected = await expectedRecord(payment);
      const byId = await service().get(`/payments/${payment.paymentId}`);
      expect(byId.status, payment.label).toBe(200);
      expect(byId.headers.get("cache-control")).toBe("no-store");
      expect(byId.body, payment.label).toMatchObject(expected);
      expect(byId.body.minedAt, payment.label).toEqual(expect.any(String));
      // The /api/v1 prefix answers the same, and the id in any case.
      const prefixed = await service().get(`/api/v1/payments/${payment.paymentId.toUpperCase().replace("0X", "0x")}`);
      expect(prefixed.body, payment.label).toEqual(byId.body);

      const byTransaction = await service().get(`/payments/by-transaction/${payment.transaction}`);
      expect(byTransaction.status).toBe(200);
      expect(byTransaction.body.payments, payment.label).toContainEqual(byId.body);

      if (payment.nonceSpace) {
        const byNonce = await service().get(nonceQuery(payment));
        expect(byNonce.status, payment.label).toBe(200);
        expect(byNonce.body.payments, payment.label).toEqual([byId.body]);
      }

      // The dashboard's row of it says the same id and block.
      const rows = await service().get(`/dashboard/api/settlements?payer=${payment.payer}`, {
        "x-dashboard-api-key": DASHBOARD_KEY,
      });
      expect(rows.body.settlements, payment.label).toContainEqual(
        expect.objectContaining({ paymentId: expected.paymentId, block: expected.block, txHash: expected.transaction }),
      );
    }
  }, 180_000);

  test(`${label}: a front-run payment reads failed with its reason, on both networks`, async () => {
    for (const network of ["bsc", "base"] as const) {
      const { paymentId, answer } = await frontRunPayment(service(), network);
      expect(answer.body.code).toBe("nonce_error");
      const record = await service().get(`/payments/${paymentId}`);
      expect(record.status).toBe(200);
      expect(record.body).toMatchObject({ paymentId, status: "failed", network });
      expect(record.body.failureReason).toContain("nonce");
      // Our own transaction was mined and reverted (the nonce was used first): the record keeps its receipt's block.
      if (record.body.transaction !== null) {
        const receipt = await chainOf(network).public.getTransactionReceipt({ hash: record.body.transaction });
        expect(receipt.status).toBe("reverted");
        expect(record.body.block).toBe(Number(receipt.blockNumber));
        expect(record.body.gasUsed).toBe(receipt.gasUsed.toString());
      } else expect(record.body.block).toBeNull();
    }
  }, 120_000);

  test(`${label}: an unknown id is 404, a malformed one 400, in the error envelope`, async () => {
    const unknown = `0x${"ab".repeat(32)}`;
    const missing = await service().get(`/payments/${unknown}`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: "not_found", details: { paymentId: unknown } });
    expect(missing.body.doc_url).toContain("not_found");
    const malformed = await service().get("/payments/0x1234");
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: "validation_error", details: { field: "paymentId" } });
    const badHash = await service().get("/payments/by-transaction/nope");
    expect(badHash.body).toMatchObject({ code: "validation_error", details: { field: "hash" } });
    const partial = await service().get(`/payments?network=bsc&contract=${OURS}`);
    expect(partial.status).toBe(400);
    expect(partial.body).toMatchObject({ code: "validation_error", details: { field: "payer" } });
    const never = await service().get(`/payments?network=bsc&contract=${OURS}&payer=${THEIRS}&nonce=7`);
    expect(never.body).toEqual({ payments: [], next: null });
  });

  test(`${label}: listings need a key; a merchant key sees only its own payTo's payments`, async () => {
    const none = await service().get("/payments");
    expect(none.status).toBe(401);
    expect(none.body.code).toBe("unauthorized");
    const wrong = await service().get("/payments", { "x-api-key": "not-a-merchant-key-000" });
    expect(wrong.status).toBe(401);
    const bare = await service().get("/payments", { "x-api-key": BARE_MERCHANT_KEY });
    expect(bare.status).toBe(401);
    expect(bare.body.message).toContain("payTo");

    const ours = settled.filter((each) => each.payee === OURS).map((each) => each.paymentId.toLowerCase());
    const theirs = settled.filter((each) => each.payee === THEIRS).map((each) => each.paymentId.toLowerCase());
    expect(ours.length).toBeGreaterThan(0);
    expect(theirs.length).toBeGreaterThan(0);
    const merchant = await service().get("/payments?limit=200", { "x-api-key": MERCHANT_KEY });
    expect(merchant.status).toBe(200);
    // One merchant's listing is never kept by a cache, nor served to another key.
    expect(merchant.headers.get("cache-control")).toBe("no-store");
    expect(merchant.headers.get("vary")).toContain("x-api-key");
    const listed = merchant.body.payments.map((each: any) => each.paymentId);
    expect([...listed].sort()).toEqual([...ours].sort());
    // Another merchant's payee selects nothing: its rows are not shown.
    const asked = await service().get(`/payments?payee=${THEIRS}`, { "x-api-key": MERCHANT_KEY });
    expect(asked.body).toEqual({ payments: [], next: null });

    const admin = { "x-admin-api-key": service().config.adminApiKey };
    const all = await service().get("/payments?limit=200", admin);
    expect(all.status).toBe(200);
    const every = all.body.payments.map((each: any) => each.paymentId);
    for (const id of [...ours, ...theirs]) expect(every).toContain(id);
    const theirsOnly = await service().get(`/payments?payee=${THEIRS}&status=settled&limit=200`, admin);
    expect(theirsOnly.body.payments.map((each: any) => each.paymentId).sort()).toEqual([...theirs].sort());
    const paged = await service().get("/payments?limit=2", admin);
    expect(paged.body.payments).toHaveLength(2);
    const next = await service().get(`/payments?limit=200&before=${paged.body.next}`, admin);
    expect(next.body.payments.length).toBe(every.length - 2);
    const tooMany = await service().get("/payments?limit=201", admin);
    expect(tooMany.body).toMatchObject({ code: "validation_error", details: { field: "limit" } });
  });
}

describe("SQLite", () => {
  const service = startTestService(overrides);
  afterAll(() => service.stop());
  checks("SQLite", () => service);
});

describe("PostgreSQL", () => {
  let service: Awaited<ReturnType<typeof postgresService>> & { config: { adminApiKey: string } };
  let config: ReturnType<typeof configFromManifest>;
  let url = "";
  afterAll(() => service?.stop());
  test("starts on its own database", async () => {
    config = configFromManifest(getTestDevnet().devnet.manifest, {
      ...overrides,
      rateLimitPerMinute: 1_000_000,
      logRequests: false,
      databasePath: ":memory:",
    });
    url = await createTestDatabase("lookup");
    service = Object.assign(await postgresService(config, url), { config });
  });
  checks("PostgreSQL", () => service);

  test("another instance on the same database answers the same records", async () => {
    const other = await postgresService(config, url);
    try {
      const admin = { "x-admin-api-key": config.adminApiKey };
      const mine = await service.get("/payments?limit=200", admin);
      expect(mine.body.payments.length).toBeGreaterThan(0);
      expect((await other.get("/payments?limit=200", admin)).body).toEqual(mine.body);
      for (const payment of mine.body.payments)
        expect((await other.get(`/payments/${payment.paymentId}`)).body).toEqual(payment);
    } finally {
      await other.stop();
    }
  });
});

describe("SQLite: a released record", () => {
  const service = startTestService();
  afterAll(() => service.stop());

  test("is pending while claimed, then 404 once released: the same body may be settled again", async () => {
    const c = chainOf("bsc");
    const payer = await freshPayer("bsc");
    const body = await signedPayment({ network: "bsc", key: payer.key, to: OURS, value: 5n });
    const { nonce } = body.paymentPayload.payload.authorization;
    const paymentId = paymentIdOf({ chainId: c.info.chainId, contract: c.info.relayer, payer: payer.address, nonce });
    const { record } = service.store.claim(settlementOf("bsc", parseAuthorization(body.paymentPayload), paymentId));
    const claimed = await service.get(`/payments/${paymentId}`);
    expect(claimed.status).toBe(200);
    expect(claimed.body).toMatchObject({ paymentId, status: "pending", transaction: null, block: null });
    service.store.release(record.id);
    const released = await service.get(`/payments/${paymentId}`);
    expect(released.status).toBe(404);
    expect(released.body.code).toBe("not_found");
  });
});
