import { afterAll, describe, expect, test } from "bun:test";
import type { Hop } from "@relay402/client/wire/swap/path";
import type { Address } from "viem";
import type { NetworkName } from "../../scripts/devnet/start";
import { NETWORK_NAMES, randomAddress } from "../support/chain";
import { routerQuote, swapTokensOf } from "../support/dex";
import { startTestService } from "../support/service";

const service = startTestService();
afterAll(() => service.stop());

type QuotedHop = { dex: string; kind: "v2" | "v3"; tokenIn: Address; tokenOut: Address; fee?: number };

/** What the router (V2 getAmountsOut) or QuoterV2 says the same route pays for amountIn, read directly. */
function onChainOutput(network: NetworkName, route: QuotedHop[], amountIn: bigint): Promise<bigint> {
  const hops: Hop[] = route.map(({ tokenIn, tokenOut, fee }) => ({ tokenIn, tokenOut, ...(fee ? { fee } : {}) }));
  return routerQuote(network, route[0]?.kind ?? "v3", hops, amountIn);
}

/** decisions.md: fee = max(swapMinFee, ceil(sellAmount × swapFeeBps / 10000)), from the service's config. */
function expectedFee(network: NetworkName, sellToken: Address, sellAmount: bigint): bigint {
  const token = service.config.networks[network]?.tokens.find(
    (t) => t.address.toLowerCase() === sellToken.toLowerCase(),
  );
  if (!token) throw new Error("not a config token");
  const proportional = (sellAmount * BigInt(token.swapFeeBps) + 9_999n) / 10_000n;
  return proportional > token.swapMinFee ? proportional : token.swapMinFee;
}

describe("POST /swap/quote", () => {
  for (const network of NETWORK_NAMES) {
    describe(network, () => {
      const cases = [
        { name: "direct V3 (M -> W)", sell: "m", buy: "w", kind: "v3", hops: 1 },
        { name: "direct V2 (DAI -> W)", sell: "dai", buy: "w", kind: "v2", hops: 1 },
        { name: "two-hop V3 (M -> W -> DAI)", sell: "m", buy: "dai", kind: "v3", hops: 2 },
        { name: "two-hop V2 (DAI -> W -> M)", sell: "dai", buy: "m", kind: "v2", hops: 2 },
      ] as const;
      for (const expected of cases) {
        test(`${expected.name}: buyAmount is what the chain pays on that route for sellAmount - fee`, async () => {
          const t = swapTokensOf(network);
          const sellToken = t[expected.sell];
          const buyToken = t[expected.buy];
          const sellAmount = 123n * (expected.sell === "m" ? t.unit : 10n ** 18n);
          const response = await service.post("/swap/quote", {
            network,
            sellToken,
            buyToken,
            sellAmount: sellAmount.toString(),
            slippageBps: 100,
          });
          expect(response.status).toBe(200);
          const quote = response.body;
          const fee = expectedFee(network, sellToken, sellAmount);
          expect(quote).toMatchObject({
            network,
            sellToken,
            buyToken,
            sellAmount: sellAmount.toString(),
            fee: fee.toString(),
            slippageBps: 100,
            relayerContract: t.c.info.relayer,
          });
          expect(quote.route).toHaveLength(expected.hops);
          expect(quote.route.map((hop: QuotedHop) => hop.kind)).toEqual(Array(expected.hops).fill(expected.kind));
          expect(quote.route[0].tokenIn).toBe(sellToken);
          expect(quote.route.at(-1).tokenOut).toBe(buyToken);
          const onChain = await onChainOutput(network, quote.route, sellAmount - fee);
          expect(onChain).toBeGreaterThan(0n);
          expect(BigInt(quote.buyAmount)).toBe(onChain);
          expect(BigInt(quote.minBuyAmount)).toBe((onChain * 9_900n) / 10_000n);
          expect(quote.priceImpactBps).toBeGreaterThan(0);
          expect(quote.priceImpactBps).toBeLessThan(200);
          const now = Math.floor(Date.now() / 1000);
          expect(quote.validBefore).toBeGreaterThanOrEqual(now + 110);
          expect(quote.validBefore).toBeLessThanOrEqual(now + 130);
          expect(quote.typedData).toBeUndefined();
        });
      }

      test("mode eoa adds the SwapWithAuthorization to sign, on the relayer's domain, with the quote's amounts", async () => {
        const t = swapTokensOf(network);
        const from = randomAddress();
        const recipient = randomAddress();
        const body = { network, sellToken: t.m, buyToken: t.dai, sellAmount: (50n * t.unit).toString() };
        const eoa = (await service.post("/swap/quote", { ...body, mode: "eoa", from, recipient })).body;
        expect(eoa.typedData.domain).toEqual({
          name: "relay402",
          version: "1",
          chainId: t.c.info.chainId,
          verifyingContract: t.c.info.relayer,
        });
        expect(eoa.typedData.primaryType).toBe("SwapWithAuthorization");
        expect(eoa.typedData.message).toMatchObject({
          from,
          sellToken: t.m,
          buyToken: t.dai,
          sellAmount: eoa.sellAmount,
          minBuyAmount: eoa.minBuyAmount,
          recipient,
          fee: eoa.fee,
          validBefore: eoa.validBefore,
        });
        expect(eoa.slippageBps).toBe(50);
        // The recipient defaults to the payer; mode wallet has the same fees and no typed data.
        const own = (await service.post("/swap/quote", { ...body, mode: "eoa", from })).body;
        expect(own.typedData.message.recipient).toBe(from);
        const wallet = (await service.post("/swap/quote", { ...body, mode: "wallet" })).body;
        expect(wallet.typedData).toBeUndefined();
        expect(wallet.fee).toBe(eoa.fee);
      });

      test("a given minBuyAmount is the minimum, and the slippage it allows is reported", async () => {
        const t = swapTokensOf(network);
        const body = { network, sellToken: t.m, buyToken: t.w, sellAmount: (10n * t.unit).toString() };
        const plain = (await service.post("/swap/quote", body)).body;
        const minimum = (BigInt(plain.buyAmount) * 9_800n) / 10_000n;
        const quote = (await service.post("/swap/quote", { ...body, minBuyAmount: minimum.toString() })).body;
        expect(quote.minBuyAmount).toBe(minimum.toString());
        expect(quote.slippageBps).toBe(200);
      });
    });
  }

  describe("refusals are validation_error naming the field", () => {
    const t = () => swapTokensOf("bsc");
    const base = () => ({
      network: "bsc",
      sellToken: t().m,
      buyToken: t().dai,
      sellAmount: (10n * t().unit).toString(),
    });
    const cases: [string, () => Record<string, unknown>, string][] = [
      ["slippageBps above 500", () => ({ ...base(), slippageBps: 501 }), "slippageBps"],
      ["a zero amount", () => ({ ...base(), sellAmount: "0" }), "sellAmount"],
      ["an amount beyond uint256", () => ({ ...base(), sellAmount: (2n ** 256n).toString() }), "sellAmount"],
      ["an amount no larger than the fee", () => ({ ...base(), sellAmount: "1000" }), "sellAmount"],
      ["an unknown network", () => ({ ...base(), network: "ethereum" }), "network"],
      ["a sell token that is not whitelisted", () => ({ ...base(), sellToken: t().w, buyToken: t().m }), "sellToken"],
      ["a pair with no route", () => ({ ...base(), buyToken: randomAddress() }), "buyToken"],
      ["the same token on both sides", () => ({ ...base(), buyToken: t().m }), "buyToken"],
      ["both slippageBps and minBuyAmount", () => ({ ...base(), slippageBps: 50, minBuyAmount: "1" }), "slippageBps"],
      ["mode eoa without the payer", () => ({ ...base(), mode: "eoa" }), "from"],
      ["a malformed address", () => ({ ...base(), buyToken: "0x1234" }), "buyToken"],
    ];
    for (const [name, body, field] of cases) {
      test(name, async () => {
        const response = await service.post("/swap/quote", body());
        expect([response.status, response.body.code, response.body.details?.field]).toEqual([
          400,
          "validation_error",
          field,
        ]);
      });
    }
  });
});
