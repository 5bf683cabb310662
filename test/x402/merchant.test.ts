import { afterAll, describe, expect, test } from "bun:test";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import { chainOf, freshPayer, randomAddress, tokenBalance } from "../support/chain";
import { x402Shop } from "../support/x402-shop";
import { fetchBuyer, listeningService, MERCHANT_API_KEY, paymentHeaders } from "./support";

const token = chainOf("base").token.address;
const price = 1_250_000n;

// relay402 as the facilitator, called with a merchant key as a shop would: the shop makes far more than the
// 5 requests a minute one address may make without it.
const relay = listeningService({ rateLimitPerMinute: 5, merchantApiKeys: [MERCHANT_API_KEY] });
const payTo = randomAddress();
const shop = x402Shop({
  facilitator: relay.facilitator(MERCHANT_API_KEY),
  network: "eip155:8453",
  payTo,
  asset: token,
  amount: price,
  extra: { name: "USD Coin", version: "2" },
});
const { itemUrl } = shop;

afterAll(() => {
  shop.stop();
  relay.stop();
});

const buyer = (options: { tokens?: bigint } = {}) => fetchBuyer("base", options);

describe("a merchant on @x402/hono with relay402 as its facilitator, a buyer on @x402/fetch", () => {
  test("the buyer pays and gets the item; the merchant receives exactly the price", async () => {
    const { pay } = await buyer();
    const before = await tokenBalance("base", token, payTo);
    const response = await pay(itemUrl);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("the item");
    expect(await tokenBalance("base", token, payTo)).toBe(before + price);
  });

  test("a served payment header replayed, twice at once: 402 both times, paid once", async () => {
    const { pay, sent } = await buyer();
    const before = await tokenBalance("base", token, payTo);
    // The buyer's own request, to learn its payment header; then two more carrying that header at once.
    const first = await pay(itemUrl);
    expect(first.status).toBe(200);
    const header = paymentHeaders(sent.at(-1) as Headers);
    expect(Object.keys(header).length).toBeGreaterThan(0);
    const copies = await Promise.all([fetch(itemUrl, { headers: header }), fetch(itemUrl, { headers: header })]);
    expect(copies.map((r) => r.status)).toEqual([402, 402]);
    expect(await tokenBalance("base", token, payTo)).toBe(before + price);
  });

  test("two buyers racing one fresh payment header: one item served, one 402, paid once", async () => {
    const payer = await freshPayer("base");
    const client = registerExactEvmScheme(new x402Client(), { signer: privateKeyToAccount(payer.key) });
    client.setSpendControls({ allowedAssets: true });
    const before = await tokenBalance("base", token, payTo);
    const unpaid = await fetch(itemUrl);
    expect(unpaid.status).toBe(402);
    const http = new x402HTTPClient(client);
    const required = http.getPaymentRequiredResponse((name) => unpaid.headers.get(name), await unpaid.json());
    const payload = await client.createPaymentPayload(required);
    const header = http.encodePaymentSignatureHeader(payload);
    const answers = await Promise.all([fetch(itemUrl, { headers: header }), fetch(itemUrl, { headers: header })]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 402]);
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
