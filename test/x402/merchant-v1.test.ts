import { afterAll, describe, expect, test } from "bun:test";
import { decodePaymentSignatureHeader, encodePaymentResponseHeader } from "@x402/core/http";
import { Hono } from "hono";
import { chainOf, randomAddress, tokenBalance } from "../support/chain";
import { fetchBuyer, listeningService, MERCHANT_API_KEY } from "./support";

// x402 v1 end to end. @x402/hono answers only v2, and the legacy x402-hono 1.x pulls in the Coinbase CDP and
// Solana SDKs, so the shop speaks v1 by hand exactly as that middleware does (402 with the requirements in the
// JSON body, the payment in X-PAYMENT, verify → serve → settle, X-PAYMENT-RESPONSE); the facilitator client and
// the buyer (@x402/fetch with @x402/evm's v1 exact scheme, network "base") are x402's own packages.
const token = chainOf("base").token.address;
const price = 750_000n;
const relay = listeningService({ rateLimitPerMinute: 5, merchantApiKeys: [MERCHANT_API_KEY] });
const facilitator = relay.facilitator(MERCHANT_API_KEY);
const payTo = randomAddress();

const requirements = (resource: string) => ({
  scheme: "exact",
  network: "base",
  maxAmountRequired: price.toString(),
  resource,
  description: "an item",
  mimeType: "text/plain",
  payTo,
  maxTimeoutSeconds: 300,
  asset: token,
  extra: { name: "USD Coin", version: "2" },
});

const shop = new Hono();
shop.get("/item", async (c) => {
  const accepts = [requirements(c.req.url)];
  const refuse = (error: string) => c.json({ x402Version: 1, error, accepts }, 402);
  const header = c.req.header("X-PAYMENT");
  if (!header) return refuse("X-PAYMENT header is required");
  const payment = decodePaymentSignatureHeader(header);
  const verified = await facilitator.verify(payment, accepts[0] as never);
  if (!verified.isValid) return refuse(verified.invalidReason ?? "invalid payment");
  const settled = await facilitator.settle(payment, accepts[0] as never);
  if (!settled.success) return refuse(settled.errorReason ?? "settlement failed");
  c.header("X-PAYMENT-RESPONSE", encodePaymentResponseHeader(settled));
  return c.text("the item");
});
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: shop.fetch });
const itemUrl = `http://127.0.0.1:${server.port}/item`;

afterAll(() => {
  server.stop(true);
  relay.stop();
});

const buyer = (options: { tokens?: bigint } = {}) => fetchBuyer("base", options);

describe("x402 v1: a v1 shop with relay402 as its facilitator, a buyer on @x402/fetch (network base)", () => {
  test("the buyer pays with an X-PAYMENT header and gets the item; the merchant receives exactly the price", async () => {
    const { pay, sent } = await buyer();
    const before = await tokenBalance("base", token, payTo);
    const response = await pay(itemUrl);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("the item");
    expect(sent.at(-1)?.get("X-PAYMENT")).toBeTruthy();
    expect(await tokenBalance("base", token, payTo)).toBe(before + price);
  });

  test("the served X-PAYMENT header replayed, twice at once: 402 both times, paid once", async () => {
    const { pay, sent } = await buyer();
    const before = await tokenBalance("base", token, payTo);
    expect((await pay(itemUrl)).status).toBe(200);
    const header = { "X-PAYMENT": sent.at(-1)?.get("X-PAYMENT") as string };
    const copies = await Promise.all([fetch(itemUrl, { headers: header }), fetch(itemUrl, { headers: header })]);
    expect(copies.map((r) => r.status)).toEqual([402, 402]);
    expect(await tokenBalance("base", token, payTo)).toBe(before + price);
  });

  test("a buyer without funds gets the 402 again and pays nothing", async () => {
    const { pay } = await buyer({ tokens: 0n });
    const before = await tokenBalance("base", token, payTo);
    const response = await pay(itemUrl);
    expect(response.status).toBe(402);
    expect(await tokenBalance("base", token, payTo)).toBe(before);
  });
});
