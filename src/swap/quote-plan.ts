import { quoterV2Abi, v2PairAbi, v3PoolAbi } from "@relay402/client/wire/swap/abis";
import { encodePath } from "@relay402/client/wire/swap/path";
import {
  candidateRoutes,
  priceImpactBps,
  type Ratio,
  type Route,
  v2AmountOut,
  v2MidPrice,
  v2PairAddress,
  v3MidPrice,
  v3PoolAddress,
} from "@relay402/client/wire/swap/quote-math";
import { type Address, decodeFunctionResult, encodeFunctionData, type Hex, multicall3Abi } from "viem";

/** One network's DEXes as quoting needs them (the devnet manifest's `dex`, or config on a fork). */
export type QuoteDexes = {
  v2?: { name: string; factory: Address; initCodeHash: Hex; feeBps: number };
  v3?: { name: string; factory: Address; initCodeHash: Hex; quoter: Address; feeTiers: readonly number[] };
};

export type RouteQuote = { route: Route; dex: string; amountOut: bigint; priceImpactBps: number };

export type Aggregate3Call = { target: Address; allowFailure: true; callData: Hex };
export type Aggregate3Result = { success: boolean; returnData: Hex };

/**
 * Everything one quote reads, as the calls of a single Multicall3 aggregate3 (every call may fail: a pair or
 * pool that does not exist is just a route without output): V2 reserves of each pair the routes touch (at
 * the address its factory would give it), a QuoterV2 quote per V3 route, and slot0 of each V3 pool for the mid
 * price. `evaluate` turns the results into one quote per route that has output.
 */
export function planQuote(options: {
  sellToken: Address;
  buyToken: Address;
  amountIn: bigint;
  connectors: readonly Address[];
  dexes: QuoteDexes;
}): { calls: Aggregate3Call[]; evaluate(results: readonly Aggregate3Result[]): RouteQuote[] } {
  const { dexes, amountIn } = options;
  const routes = candidateRoutes({
    sellToken: options.sellToken,
    buyToken: options.buyToken,
    connectors: options.connectors,
    v2: dexes.v2 !== undefined,
    v3FeeTiers: dexes.v3?.feeTiers ?? [],
  });

  const calls: Aggregate3Call[] = [];
  const indexOf = new Map<string, number>();
  const read = (target: Address, callData: Hex) => {
    const key = `${target.toLowerCase()}:${callData}`;
    let index = indexOf.get(key);
    if (index === undefined) {
      index = calls.push({ target, allowFailure: true, callData }) - 1;
      indexOf.set(key, index);
    }
    return index;
  };
  const getReserves = encodeFunctionData({ abi: v2PairAbi, functionName: "getReserves" });
  const slot0 = encodeFunctionData({ abi: v3PoolAbi, functionName: "slot0" });

  type Planned = { route: Route; pairs: number[] } | { route: Route; quote: number; pools: number[] };
  const planned = routes.map((route): Planned => {
    if (route.kind === "v2" && dexes.v2) {
      const { factory, initCodeHash } = dexes.v2;
      const pairs = route.hops.map((hop) =>
        read(v2PairAddress(factory, initCodeHash, hop.tokenIn, hop.tokenOut), getReserves),
      );
      return { route, pairs };
    }
    const v3 = dexes.v3 as NonNullable<QuoteDexes["v3"]>;
    const quote = read(
      v3.quoter,
      encodeFunctionData({
        abi: quoterV2Abi,
        functionName: "quoteExactInput",
        args: [encodePath("v3", route.hops), amountIn],
      }),
    );
    const pools = route.hops.map((hop) =>
      read(v3PoolAddress(v3.factory, v3.initCodeHash, hop.tokenIn, hop.tokenOut, hop.fee as number), slot0),
    );
    return { route, quote, pools };
  });

  return {
    calls,
    evaluate(results) {
      if (results.length !== calls.length) throw new Error(`expected ${calls.length} results, got ${results.length}`);
      const quotes: RouteQuote[] = [];
      for (const plan of planned) {
        const quote =
          "pairs" in plan
            ? evaluateV2(plan.route, plan.pairs, results, amountIn, dexes)
            : evaluateV3(plan, results, amountIn, dexes);
        if (quote && quote.amountOut > 0n) quotes.push(quote);
      }
      return quotes;
    },
  };
}

/** A result's return data decoded, or undefined when the call failed or hit an address without code. */
function decoded<T>(result: Aggregate3Result | undefined, decode: (data: Hex) => T): T | undefined {
  if (!result?.success || result.returnData === "0x") return undefined;
  try {
    return decode(result.returnData);
  } catch {
    return undefined;
  }
}

function evaluateV2(
  route: Route,
  pairs: number[],
  results: readonly Aggregate3Result[],
  amountIn: bigint,
  dexes: QuoteDexes,
): RouteQuote | undefined {
  const v2 = dexes.v2 as NonNullable<QuoteDexes["v2"]>;
  let amount = amountIn;
  const mids: Ratio[] = [];
  for (const [i, hop] of route.hops.entries()) {
    const reserves = decoded(results[pairs[i] as number], (data) =>
      decodeFunctionResult({ abi: v2PairAbi, functionName: "getReserves", data }),
    );
    if (!reserves) return undefined;
    const inIsToken0 = hop.tokenIn.toLowerCase() < hop.tokenOut.toLowerCase();
    const [reserveIn, reserveOut] = inIsToken0 ? [reserves[0], reserves[1]] : [reserves[1], reserves[0]];
    amount = v2AmountOut(amount, reserveIn, reserveOut, v2.feeBps);
    mids.push(v2MidPrice(reserveIn, reserveOut));
  }
  return { route, dex: v2.name, amountOut: amount, priceImpactBps: priceImpactBps(amountIn, amount, mids) };
}

function evaluateV3(
  plan: { route: Route; quote: number; pools: number[] },
  results: readonly Aggregate3Result[],
  amountIn: bigint,
  dexes: QuoteDexes,
): RouteQuote | undefined {
  const v3 = dexes.v3 as NonNullable<QuoteDexes["v3"]>;
  const quoted = decoded(results[plan.quote], (data) =>
    decodeFunctionResult({ abi: quoterV2Abi, functionName: "quoteExactInput", data }),
  );
  if (!quoted) return undefined;
  const mids: Ratio[] = [];
  for (const [i, hop] of plan.route.hops.entries()) {
    const state = decoded(results[plan.pools[i] as number], (data) =>
      decodeFunctionResult({ abi: v3PoolAbi, functionName: "slot0", data }),
    );
    if (!state) return undefined;
    mids.push(v3MidPrice(state[0], hop.tokenIn, hop.tokenOut));
  }
  const amountOut = quoted[0];
  return { route: plan.route, dex: v3.name, amountOut, priceImpactBps: priceImpactBps(amountIn, amountOut, mids) };
}

/** The aggregate3 call data for `calls`, and its results decoded (what the service's one eth_call sends). */
export function encodeAggregate3(calls: readonly Aggregate3Call[]): Hex {
  return encodeFunctionData({ abi: multicall3Abi, functionName: "aggregate3", args: [calls] });
}

export function decodeAggregate3(data: Hex): readonly Aggregate3Result[] {
  return decodeFunctionResult({ abi: multicall3Abi, functionName: "aggregate3", data });
}
