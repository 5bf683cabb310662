import { describe, expect, test } from "bun:test";
import { erc20Abi, relayerAbi } from "@relay402/client/wire/abis";
import {
  ROUTER_KIND,
  relayerSwapAbi,
  swapRouter02Abi,
  v2FactoryAbi,
  v2PairAbi,
  v2RouterAbi,
  v3FactoryAbi,
  v3PoolAbi,
} from "@relay402/client/wire/swap/abis";
import type { Hop } from "@relay402/client/wire/swap/path";
import {
  bestRoute,
  priceImpactBps,
  v2MidPrice,
  v2PairAddress,
  v2RouteAmountOut,
  v3MidPrice,
  v3PoolAddress,
} from "@relay402/client/wire/swap/quote-math";
import { type Address, encodePacked, type Hex, maxUint256, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { UNISWAP_V2_INIT_CODE_HASH, UNISWAP_V3_INIT_CODE_HASH } from "../../scripts/devnet/dex-plan";
import { MULTICALL3 } from "../../src/chain/addresses";
import { decodeAggregate3, encodeAggregate3, planQuote } from "../../src/swap/quote-plan";
import { chainOf, freshPayer, NETWORK_NAMES, tokenBalance } from "../support/chain";
import { getTestDevnet } from "../support/devnet";
import { routerQuote, swapTokensOf } from "../support/dex";

const randomNonce = () => toHex(crypto.getRandomValues(new Uint8Array(32)));
const _randomAddress = () => privateKeyToAccount(randomNonce()).address;

describe("devnet DEX (Uniswap V2/V3 from the npm artifacts)", () => {
  test("every DEX contract has code, at the same address on both chains, with the published init-code hashes", async () => {
    const { manifest } = getTestDevnet().devnet;
    expect(manifest.networks.bsc.dex).toEqual(manifest.networks.base.dex);
    for (const network of NETWORK_NAMES) {
      const { c, dex, dai } = swapTokensOf(network);
      expect(dex.v2.initCodeHash).toBe(UNISWAP_V2_INIT_CODE_HASH);
      expect(dex.v3.initCodeHash).toBe(UNISWAP_V3_INIT_CODE_HASH);
      const addresses = [
        dex.wrappedNative,
        dex.v2.factory,
        dex.v2.router,
        dex.v3.factory,
        dex.v3.router,
        dex.v3.quoter,
        dex.v3.mixedRouteQuoter,
        dex.v3.positionManager,
        dai,
      ];
      for (const address of addresses) {
        expect((await c.public.getCode({ address }))?.length ?? 0).toBeGreaterThan(2);
      }
      // The payment token stays first (tests and clients take the first token as the network's own).
      expect(Object.keys(c.info.tokens)).toEqual(
        network === "bsc" ? ["USDT", "DAI", "PUSD", "USDC"] : ["USDC", "DAI", "PUSD", "USDT"],
      );
    }
  });

  for (const network of NETWORK_NAMES) {
    describe(network, () => {
      test("the relayer whitelists both routers with their call kind, DAI, and sends swap fees to feeRecipient", async () => {
        const { c, dex, dai } = swapTokensOf(network);
        const routerKind = (router: Address) =>
          c.public.readContract({
            address: c.info.relayer,
            abi: relayerSwapAbi,
            functionName: "routerKind",
            args: [router],
          });
        expect(await routerKind(dex.v2.router)).toBe(ROUTER_KIND.v2);
        expect(await routerKind(dex.v3.router)).toBe(ROUTER_KIND.v3);
        expect(
          await c.public.readContract({ address: c.info.relayer, abi: relayerSwapAbi, functionName: "feeRecipient" }),
        ).toBe(c.info.feeRecipient);
        expect(
          await c.public.readContract({
            address: c.info.relayer,
            abi: relayerAbi,
            functionName: "isTokenWhitelisted",
            args: [dai],
          }),
        ).toBe(true);
        const payer = getTestDevnet().devnet.manifest.accounts[0]?.address as Address;
        expect(await tokenBalance(network, dai, payer)).toBeGreaterThan(0n);
      });

      test("each kind of route is the best for one pair: V3 direct, V2 direct, V3 two-hop, V2 two-hop", async () => {
        const { m, dai, w } = swapTokensOf(network);
        const oneM = 10n ** BigInt(chainOf(network).token.decimals);
        const oneDai = 10n ** 18n;
        const oneW = 10n ** 18n / 1000n;
        // M -> W: the 0.05% V3 pool beats the 0.3% V2 pair.
        expect(await routerQuote(network, "v3", [{ tokenIn: m, tokenOut: w, fee: 500 }], 100n * oneM)).toBeGreaterThan(
          await routerQuote(network, "v2", [{ tokenIn: m, tokenOut: w }], 100n * oneM),
        );
        // DAI -> W: the V2 pair (V3's DAI/W pool pays 1% less W per DAI).
        expect(await routerQuote(network, "v2", [{ tokenIn: dai, tokenOut: w }], 100n * oneDai)).toBeGreaterThan(
          await routerQuote(network, "v3", [{ tokenIn: dai, tokenOut: w, fee: 3000 }], 100n * oneDai),
        );
        // M -> DAI (no direct pool): two hops through W, V3 better; DAI -> M: V2 better.
        const v3MtoDai = await routerQuote(
          network,
          "v3",
          [
            { tokenIn: m, tokenOut: w, fee: 500 },
            { tokenIn: w, tokenOut: dai, fee: 3000 },
          ],
          100n * oneM,
        );
        const v2MtoDai = await routerQuote(
          network,
          "v2",
          [
            { tokenIn: m, tokenOut: w },
            { tokenIn: w, tokenOut: dai },
          ],
          100n * oneM,
        );
        expect(v3MtoDai).toBeGreaterThan(v2MtoDai);
        const v2DaiToM = await routerQuote(
          network,
          "v2",
          [
            { tokenIn: dai, tokenOut: w },
            { tokenIn: w, tokenOut: m },
          ],
          100n * oneDai,
        );
        const v3DaiToM = await routerQuote(
          network,
          "v3",
          [
            { tokenIn: dai, tokenOut: w, fee: 3000 },
            { tokenIn: w, tokenOut: m, fee: 500 },
          ],
          100n * oneDai,
        );
        expect(v2DaiToM).toBeGreaterThan(v3DaiToM);
        // The reference price holds: 100 M buys about 0.1 W.
        const v2MtoW = await routerQuote(network, "v2", [{ tokenIn: m, tokenOut: w }], 100n * oneM);
        expect(v2MtoW).toBeGreaterThan(99n * oneW);
        expect(v2MtoW).toBeLessThan(100n * oneW);
      });

      test("quote math agrees with the chain: pair and pool addresses, V2 output from reserves, V3 mid price", async () => {
        const { c, dex, m, dai, w } = swapTokensOf(network);
        const pairMW = v2PairAddress(dex.v2.factory, dex.v2.initCodeHash, m, w);
        const pairWDai = v2PairAddress(dex.v2.factory, dex.v2.initCodeHash, w, dai);
        expect(
          await c.public.readContract({
            address: dex.v2.factory,
            abi: v2FactoryAbi,
            functionName: "getPair",
            args: [w, m],
          }),
        ).toBe(pairMW);
        const poolMW = v3PoolAddress(dex.v3.factory, dex.v3.initCodeHash, m, w, 500);
        expect(
          await c.public.readContract({
            address: dex.v3.factory,
            abi: v3FactoryAbi,
            functionName: "getPool",
            args: [w, m, 500],
          }),
        ).toBe(poolMW);

        const oriented = async (pair: Address, tokenIn: Address) => {
          const [[reserve0, reserve1], token0] = await Promise.all([
            c.public.readContract({ address: pair, abi: v2PairAbi, functionName: "getReserves" }),
            c.public.readContract({ address: pair, abi: v2PairAbi, functionName: "token0" }),
          ]);
          return token0 === tokenIn
            ? { reserveIn: reserve0, reserveOut: reserve1 }
            : { reserveIn: reserve1, reserveOut: reserve0 };
        };
        const amountIn = 37n * 10n ** BigInt(c.token.decimals);
        const reserves = [await oriented(pairMW, m), await oriented(pairWDai, w)];
        const routed = await routerQuote(
          network,
          "v2",
          [
            { tokenIn: m, tokenOut: w },
            { tokenIn: w, tokenOut: dai },
          ],
          amountIn,
        );
        expect(v2RouteAmountOut(amountIn, reserves, dex.v2.feeBps)).toBe(routed);
        // A small trade's impact is about the two 0.3% fees.
        const v2Impact = priceImpactBps(
          amountIn,
          routed,
          reserves.map((r) => v2MidPrice(r.reserveIn, r.reserveOut)),
        );
        expect(v2Impact).toBeGreaterThanOrEqual(59);
        expect(v2Impact).toBeLessThanOrEqual(62);

        const [sqrtPriceX96] = await c.public.readContract({ address: poolMW, abi: v3PoolAbi, functionName: "slot0" });
        const v3Out = await routerQuote(network, "v3", [{ tokenIn: m, tokenOut: w, fee: 500 }], amountIn);
        const v3Impact = priceImpactBps(amountIn, v3Out, [v3MidPrice(sqrtPriceX96, m, w)]);
        expect(v3Impact).toBeGreaterThanOrEqual(4);
        expect(v3Impact).toBeLessThanOrEqual(7);
      });

      test("one Multicall3 eth_call quotes every route; the best is the one the pools were seeded for", async () => {
        const { c, dex, m, dai, w } = swapTokensOf(network);
        const unit = (token: Address) => 10n ** BigInt(token === m ? c.token.decimals : 18);
        const cases = [
          { sell: m, buy: w, kind: "v3", hops: 1 },
          { sell: dai, buy: w, kind: "v2", hops: 1 },
          { sell: m, buy: dai, kind: "v3", hops: 2 },
          { sell: dai, buy: m, kind: "v2", hops: 2 },
        ] as const;
        for (const expected of cases) {
          const amountIn = 250n * unit(expected.sell);
          const plan = planQuote({
            sellToken: expected.sell,
            buyToken: expected.buy,
            amountIn,
            connectors: [w],
            dexes: { v2: dex.v2, v3: dex.v3 },
          });
          const { data } = await c.public.call({ to: MULTICALL3, data: encodeAggregate3(plan.calls) });
          const quotes = plan.evaluate(decodeAggregate3(data ?? "0x"));
          const best = bestRoute(quotes);
          expect([best?.route.kind, best?.route.hops.length]).toEqual([expected.kind, expected.hops]);
          for (const q of quotes) {
            expect(q.amountOut).toBe(await routerQuote(network, q.route.kind, q.route.hops, amountIn));
            expect(q.priceImpactBps).toBeGreaterThanOrEqual(0);
            expect(q.priceImpactBps).toBeLessThan(200);
          }
          // No M/DAI pool: a pair with two-hop routes only has no direct quote.
          if (expected.hops === 2) expect(quotes.every((q) => q.route.hops.length === 2)).toBe(true);
        }
      });

      test("a user's own swap through each router pays out what the router quoted", async () => {
        const { c, dex, m, dai, w } = swapTokensOf(network);
        const payer = await freshPayer(network);
        const wallet = c.walletFor(payer.key);
        const amount = 10n ** BigInt(c.token.decimals) * 10n;
        const mined = async (hash: Hex) =>
          expect((await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).toBe("success");
        for (const spender of [dex.v2.router, dex.v3.router]) {
          await mined(
            await wallet.writeContract({
              address: m,
              abi: erc20Abi,
              functionName: "approve",
              args: [spender, maxUint256],
            }),
          );
        }

        const v2Hops: Hop[] = [
          { tokenIn: m, tokenOut: w },
          { tokenIn: w, tokenOut: dai },
        ];
        const v2Expected = await routerQuote(network, "v2", v2Hops, amount);
        await mined(
          await wallet.writeContract({
            address: dex.v2.router,
            abi: v2RouterAbi,
            functionName: "swapExactTokensForTokens",
            args: [amount, v2Expected, [m, w, dai], payer.address, BigInt(Math.floor(Date.now() / 1000) + 600)],
          }),
        );
        expect(await tokenBalance(network, dai, payer.address)).toBe(v2Expected);

        const v3Expected = await routerQuote(network, "v3", [{ tokenIn: m, tokenOut: w, fee: 500 }], amount);
        await mined(
          await wallet.writeContract({
            address: dex.v3.router,
            abi: swapRouter02Abi,
            functionName: "exactInput",
            args: [
              {
                path: encodePacked(["address", "uint24", "address"], [m, 500, w]),
                recipient: payer.address,
                amountIn: amount,
                amountOutMinimum: v3Expected,
              },
            ],
          }),
        );
        expect(await tokenBalance(network, w, payer.address)).toBe(v3Expected);
      });
    });
  }
});
