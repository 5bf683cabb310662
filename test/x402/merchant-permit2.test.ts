import { afterAll, describe, expect, test } from "bun:test";
import { chainOf, randomAddress, tokenBalance } from "../support/chain";
import { x402Shop } from "../support/x402-shop";
import { fetchBuyer, listeningService, MERCHANT_API_KEY, paymentHeaders } from "./support";

const token = chainOf("bsc").token.address;
const price = 3n * 10n ** 17n; // 0.3 of the 18-decimal USDT-like token, which has no EIP-3009

// A shop on bsc: x402's own middleware, relay402 as its facilitator, the price paid with Permit2.
const relay = listeningService({ merchantApiKeys: [MERCHANT_API_KEY] });
const payTo = randomAddress();
const shop = x402Shop({
  facilitator: relay.facilitator(MERCHANT_API_KEY),
  network: "eip155:56",
  payTo,
  asset: token,
  amount: price,
  extra: { assetTransferMethod: "permit2" },
});
const { itemUrl } = shop;

afterAll(() => {
  shop.stop();
  relay.stop();
});

const buyer = (options: { tokens?: bigint } = {}) => fetchBuyer("bsc", options);

describe("a shop on @x402/hono paid on bsc (eip155:56) with Permit2, relay402 as its facilitator", () => {
  test("the buyer pays and gets the item; the merchant receives exactly the price; the header replayed is 402", async () => {
    const { pay, sent, address } = await buyer();
    const before = await tokenBalance("bsc", token, payTo);
    const buyerBefore = await tokenBalance("bsc", token, address);
    const response = await pay(itemUrl);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("the item");
    expect(await tokenBalance("bsc", token, payTo)).toBe(before + price);
    expect(await tokenBalance("bsc", token, address)).toBe(buyerBefore - price);

    const header = paymentHeaders(sent.at(-1) as Headers);
    expect(Object.keys(header).length).toBeGreaterThan(0);
    const replayed = await fetch(itemUrl, { headers: header });
    expect(replayed.status).toBe(402);
    expect(await tokenBalance("bsc", token, payTo)).toBe(before + price);
  });

  test("a buyer without funds gets the 402 again and pays nothing", async () => {
    const { pay } = await buyer({ tokens: 0n });
    const before = await tokenBalance("bsc", token, payTo);
    const response = await pay(itemUrl);
    expect(response.status).toBe(402);
    expect(await tokenBalance("bsc", token, payTo)).toBe(before);
  });
});
