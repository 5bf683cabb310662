import { afterAll, describe, expect, test } from "bun:test";
import { type Hex, keccak256, parseGwei, parseTransaction } from "viem";
import { chainOf, randomAddress, tokenBalance } from "../support/chain";
import { x402ExpressShop } from "../support/x402-shop-express";
import { listeningService, MERCHANT_API_KEY } from "../x402/support";
import {
  CAIP2,
  fetchPayer,
  type Net,
  nativeBalance,
  payloadOfHeaders,
  plainToken,
  SPONSORING_DECLARATION,
  signedApproveOf,
  tokenOnlyPayer,
  x402ClientWithoutFeeEstimates,
} from "./funded-approve-support";

const price = 3n * 10n ** 17n; // 0.3 TestUSDT
const relay = listeningService({ merchantApiKeys: [MERCHANT_API_KEY] });
// Merchants on Express (@x402/express), as the buyer meets them; the Hono shop is test/x402/merchant*.
const shops = await Promise.all(
  (["bsc", "base"] as const).map(async (network) => {
    const payTo = randomAddress();
    const shop = await x402ExpressShop({
      facilitator: relay.facilitator(MERCHANT_API_KEY),
      network: CAIP2[network],
      payTo,
      asset: plainToken(),
      amount: price,
      extra: { assetTransferMethod: "permit2" },
      extensions: SPONSORING_DECLARATION,
    });
    return { network, payTo, ...shop };
  }),
);

afterAll(() => {
  for (const shop of shops) shop.stop();
  relay.stop();
});

describe("x402 erc20ApprovalGasSponsoring: a payer with only TestUSDT and no native coins pays through @x402/fetch from an @x402/express shop", () => {
  test("GET /supported advertises the extension", async () => {
    const supported = (await (await fetch(`${relay.url}/supported`)).json()) as { extensions: string[] };
    expect(supported.extensions).toContain("erc20ApprovalGasSponsoring");
  });

  for (const network of ["bsc", "base"] as Net[]) {
    test(`${network}: the payee gets the price, the payer loses the price and only the price, funded exactly its approve's cost`, async () => {
      const shop = shops.find((candidate) => candidate.network === network);
      if (!shop) throw new Error("no shop");
      const c = chainOf(network);
      const payer = await tokenOnlyPayer(network);
      expect(await nativeBalance(network, payer.address)).toBe(0n);
      const tokensBefore = await tokenBalance(network, plainToken(), payer.address);
      const { pay, sent } = fetchPayer(payer.key);

      const response = await pay(shop.itemUrl);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe("the item");
      expect(await tokenBalance(network, plainToken(), shop.payTo)).toBe(price);
      expect(await tokenBalance(network, plainToken(), payer.address)).toBe(tokensBefore - price);

      // The funding was the signed approve's gas limit × max fee; what the approve did not use stays with the payer.
      const raw = signedApproveOf(payloadOfHeaders(sent.at(-1) as Headers));
      const approve = parseTransaction(raw);
      const funding = (approve.gas as bigint) * (approve.maxFeePerGas as bigint);
      const receipt = await c.public.getTransactionReceipt({ hash: keccak256(raw as Hex) });
      expect(receipt.status).toBe("success");
      expect(await nativeBalance(network, payer.address)).toBe(funding - receipt.gasUsed * receipt.effectiveGasPrice);
      expect(await c.public.getTransactionCount({ address: payer.address })).toBe(1);

      // A second payment needs no approve: no extension, no funding, the native balance untouched.
      const left = await nativeBalance(network, payer.address);
      const again = fetchPayer(payer.key);
      expect((await again.pay(shop.itemUrl)).status).toBe(200);
      expect(JSON.stringify(payloadOfHeaders(again.sent.at(-1) as Headers))).not.toContain("signedTransaction");
      expect(await tokenBalance(network, plainToken(), shop.payTo)).toBe(2n * price);
      expect(await nativeBalance(network, payer.address)).toBe(left);
    });

    test(`${network}: a signer that cannot estimate fees signs x402's defaults (70,000 gas at 1 gwei), which the price bounds accept`, async () => {
      const shop = shops.find((candidate) => candidate.network === network);
      if (!shop) throw new Error("no shop");
      const c = chainOf(network);
      const payer = await tokenOnlyPayer(network);
      const paidBefore = await tokenBalance(network, plainToken(), shop.payTo);
      const { pay, sent } = fetchPayer(payer.key, x402ClientWithoutFeeEstimates(payer.key, network));

      expect((await pay(shop.itemUrl)).status).toBe(200);
      const raw = signedApproveOf(payloadOfHeaders(sent.at(-1) as Headers));
      const approve = parseTransaction(raw);
      expect({ gas: approve.gas, maxFeePerGas: approve.maxFeePerGas }).toEqual({
        gas: 70_000n,
        maxFeePerGas: parseGwei("1"),
      });
      expect(await tokenBalance(network, plainToken(), shop.payTo)).toBe(paidBefore + price);
      const receipt = await c.public.getTransactionReceipt({ hash: keccak256(raw) });
      expect(await nativeBalance(network, payer.address)).toBe(
        70_000n * parseGwei("1") - receipt.gasUsed * receipt.effectiveGasPrice,
      );
    });
  }
});
