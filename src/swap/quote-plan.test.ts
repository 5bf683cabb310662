import { describe, expect, test } from "bun:test";
import { quoterV2Abi, v2PairAbi, v3PoolAbi } from "@relay402/client/wire/swap/abis";
import { encodePath } from "@relay402/client/wire/swap/path";
import { v2AmountOut, v2PairAddress, v3PoolAddress } from "@relay402/client/wire/swap/quote-math";
import { type Address, decodeFunctionData, encodeFunctionResult, type Hex } from "viem";
import { type Aggregate3Result, planQuote, type QuoteDexes } from "./quote-plan";

const SELL: Address = "0x1111111111111111111111111111111111111111";
const BUY: Address = "0x2222222222222222222222222222222222222222";
const MID: Address = "0x3333333333333333333333333333333333333333";
const dexes: QuoteDexes = {
  v2: {
    name: "uniswap-v2",
    factory: "0x5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f",
    initCodeHash: "0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f",
    feeBps: 30,
  },
  v3: {
    name: "uniswap-v3",
    factory: "0x1F98431c8aD98523631AE4a59f267346ea31F984",
    initCodeHash: "0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54",
    quoter: "0x61fFE014bA17989E743c5F6cB21bF9697530B21e",
    feeTiers: [500, 3000],
  },
};
const Q96 = 1n << 96n;
const EMPTY: Aggregate3Result = { success: true, returnData: "0x" }; // a call to an address without code
const FAILED: Aggregate3Result = { success: false, returnData: "0x" };
const reserves = (r0: bigint, r1: bigint): Aggregate3Result => ({
  success: true,
  returnData: encodeFunctionResult({ abi: v2PairAbi, functionName: "getReserves", result: [r0, r1, 0] }),
});
const slot0 = (sqrtPriceX96: bigint): Aggregate3Result => ({
  success: true,
  returnData: encodeFunctionResult({
    abi: v3PoolAbi,
    functionName: "slot0",
    result: [sqrtPriceX96, 0, 0, 1, 1, 0, true],
  }),
});
const quoted = (amountOut: bigint): Aggregate3Result => ({
  success: true,
  returnData: encodeFunctionResult({
    abi: quoterV2Abi,
    functionName: "quoteExactInput",
    result: [amountOut, [Q96], [0], 100_000n],
  }),
});

describe("planQuote", () => {
  const amountIn = 10n ** 18n;
  const plan = planQuote({ sellToken: SELL, buyToken: BUY, amountIn, connectors: [MID], dexes });
  const v2 = dexes.v2 as NonNullable<QuoteDexes["v2"]>;
  const v3 = dexes.v3 as NonNullable<QuoteDexes["v3"]>;
  const target = (address: Address) => plan.calls.findIndex((call) => call.target === address);

  test("one read per pair and pool however many routes touch it, one QuoterV2 call per V3 route", () => {
    // V2: SELL/BUY, SELL/MID, MID/BUY. V3 pools: 3 pairs x 2 tiers. Quotes: 2 direct + 4 two-hop.
    const quoterCalls = plan.calls.filter((call) => call.target === v3.quoter);
    expect(quoterCalls).toHaveLength(6);
    expect(plan.calls).toHaveLength(3 + 6 + 6);
    expect(plan.calls.every((call) => call.allowFailure)).toBe(true);
    const paths = quoterCalls.map(
      (call) => decodeFunctionData({ abi: quoterV2Abi, data: call.callData }).args?.[0] as Hex,
    );
    expect(paths).toContain(encodePath("v3", [{ tokenIn: SELL, tokenOut: BUY, fee: 3000 }]));
    expect(target(v2PairAddress(v2.factory, v2.initCodeHash, BUY, SELL))).toBeGreaterThanOrEqual(0);
    expect(target(v3PoolAddress(v3.factory, v3.initCodeHash, MID, BUY, 500))).toBeGreaterThanOrEqual(0);
  });

  test("routes without a pair or pool have no quote; the others get output and price impact", () => {
    const results: Aggregate3Result[] = plan.calls.map(() => EMPTY);
    // V2 direct pair exists (token0 = SELL, the lower address): 1000 SELL : 2000 BUY.
    results[target(v2PairAddress(v2.factory, v2.initCodeHash, SELL, BUY))] = reserves(
      1000n * amountIn,
      2000n * amountIn,
    );
    // V3 direct at 0.05%: the quoter answers and the pool's price is 2 BUY per SELL (sqrt 2 ~ 99/70).
    const pool = v3PoolAddress(v3.factory, v3.initCodeHash, SELL, BUY, 500);
    results[target(pool)] = slot0((Q96 * 99n) / 70n);
    const direct500 = encodePath("v3", [{ tokenIn: SELL, tokenOut: BUY, fee: 500 }]);
    const quoteIndex = plan.calls.findIndex(
      (call) =>
        call.target === v3.quoter &&
        decodeFunctionData({ abi: quoterV2Abi, data: call.callData }).args?.[0] === direct500,
    );
    results[quoteIndex] = quoted(1_990_000_000_000_000_000n);
    // Every other quote reverts, as QuoterV2 does for a missing pool.
    for (const [i, call] of plan.calls.entries())
      if (call.target === v3.quoter && i !== quoteIndex) results[i] = FAILED;

    const quotes = plan.evaluate(results);
    expect(quotes.map((q) => [q.dex, q.route.kind, q.route.hops.length])).toEqual([
      ["uniswap-v2", "v2", 1],
      ["uniswap-v3", "v3", 1],
    ]);
    const [v2Quote, v3Quote] = quotes;
    expect(v2Quote?.amountOut).toBe(v2AmountOut(amountIn, 1000n * amountIn, 2000n * amountIn, 30));
    expect(v2Quote?.priceImpactBps).toBe(39); // 0.3% fee + 0.1% for a trade of 0.1% of the reserve
    expect(v3Quote?.amountOut).toBe(1_990_000_000_000_000_000n);
    // Mid price (99/70)^2 = 2.0002...; 1.99 falls about 51 bps below it.
    expect(v3Quote?.priceImpactBps).toBe(51);
    expect(() => plan.evaluate(results.slice(1))).toThrow();
  });

  test("a pair read in the other direction uses the reserves the other way round", () => {
    const back = planQuote({ sellToken: BUY, buyToken: SELL, amountIn, connectors: [], dexes: { v2 } });
    expect(back.calls).toHaveLength(1);
    const [quote] = back.evaluate([reserves(1000n * amountIn, 2000n * amountIn)]);
    expect(quote?.amountOut).toBe(v2AmountOut(amountIn, 2000n * amountIn, 1000n * amountIn, 30));
  });
});
