import { type Address, encodeAbiParameters, encodePacked, getContractAddress, type Hex, keccak256 } from "viem";
import type { Hop } from "./path.js";

/**
 * The arithmetic of swap quotes, with no I/O: which routes to ask about, V2 outputs from reserves, pair and pool
 * addresses from the factories' init-code hashes (so reserves and quotes need no factory lookups first), the
 * route's mid price and price impact, the best route, the fee and the signed minimum (decisions.md "Swaps").
 */

export type RouteKind = "v2" | "v3";
export type Route = { kind: RouteKind; hops: Hop[] };

const BPS = 10_000n;

const sorted = (a: Address, b: Address): [Address, Address] => (a.toLowerCase() < b.toLowerCase() ? [a, b] : [b, a]);
const same = (a: Address, b: Address) => a.toLowerCase() === b.toLowerCase();

/**
 * Direct and two-hop routes from `sellToken` to `buyToken`: V2 through each connector, V3 through each connector
 * with every pair of fee tiers. Connectors equal to either end are skipped.
 */
export function candidateRoutes(options: {
  sellToken: Address;
  buyToken: Address;
  connectors: readonly Address[];
  v2: boolean;
  v3FeeTiers: readonly number[];
}): Route[] {
  const { sellToken: sell, buyToken: buy } = options;
  if (same(sell, buy)) return [];
  const middles = options.connectors.filter(
    (token, index, all) =>
      !same(token, sell) && !same(token, buy) && all.findIndex((other) => same(other, token)) === index,
  );
  const routes: Route[] = [];
  if (options.v2) {
    routes.push({ kind: "v2", hops: [{ tokenIn: sell, tokenOut: buy }] });
    for (const middle of middles) {
      routes.push({
        kind: "v2",
        hops: [
          { tokenIn: sell, tokenOut: middle },
          { tokenIn: middle, tokenOut: buy },
        ],
      });
    }
  }
  for (const fee of options.v3FeeTiers) routes.push({ kind: "v3", hops: [{ tokenIn: sell, tokenOut: buy, fee }] });
  for (const middle of middles) {
    for (const first of options.v3FeeTiers) {
      for (const second of options.v3FeeTiers) {
        routes.push({
          kind: "v3",
          hops: [
            { tokenIn: sell, tokenOut: middle, fee: first },
            { tokenIn: middle, tokenOut: buy, fee: second },
          ],
        });
      }
    }
  }
  return routes;
}

/** UniswapV2Library.getAmountOut with the fee in basis points (30 = Uniswap's 997/1000, 25 = PancakeSwap's). */
export function v2AmountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint, feeBps: number): bigint {
  if (amountIn <= 0n || reserveIn <= 0n || reserveOut <= 0n) return 0n;
  const amountInWithFee = amountIn * (BPS - BigInt(feeBps));
  return (amountInWithFee * reserveOut) / (reserveIn * BPS + amountInWithFee);
}

/** A V2 route hop by hop, as the router's getAmountsOut does; `reserves` are oriented in the hop's direction. */
export function v2RouteAmountOut(
  amountIn: bigint,
  reserves: readonly { reserveIn: bigint; reserveOut: bigint }[],
  feeBps: number,
): bigint {
  let amount = amountIn;
  for (const { reserveIn, reserveOut } of reserves) amount = v2AmountOut(amount, reserveIn, reserveOut, feeBps);
  return amount;
}

/** UniswapV2Library.pairFor: where the factory deployed (or will deploy) the pair of `a` and `b`. */
export function v2PairAddress(factory: Address, initCodeHash: Hex, a: Address, b: Address): Address {
  const [token0, token1] = sorted(a, b);
  const salt = keccak256(encodePacked(["address", "address"], [token0, token1]));
  return getContractAddress({ opcode: "CREATE2", from: factory, salt, bytecodeHash: initCodeHash });
}

/** PoolAddress.computeAddress of v3-periphery: the pool of `a` and `b` at fee tier `fee`. */
export function v3PoolAddress(factory: Address, initCodeHash: Hex, a: Address, b: Address, fee: number): Address {
  const [token0, token1] = sorted(a, b);
  const salt = keccak256(
    encodeAbiParameters([{ type: "address" }, { type: "address" }, { type: "uint24" }], [token0, token1, fee]),
  );
  return getContractAddress({ opcode: "CREATE2", from: factory, salt, bytecodeHash: initCodeHash });
}

/** A price as an exact fraction: units of the hop's output token per unit of its input token (smallest units). */
export type Ratio = { num: bigint; den: bigint };

/** A V2 pair's mid price, without its fee. */
export function v2MidPrice(reserveIn: bigint, reserveOut: bigint): Ratio {
  return { num: reserveOut, den: reserveIn };
}

/** A V3 pool's mid price from slot0's sqrtPriceX96 (token1 per token0 is sqrtPriceX96² / 2^192), without its fee. */
export function v3MidPrice(sqrtPriceX96: bigint, tokenIn: Address, tokenOut: Address): Ratio {
  const squared = sqrtPriceX96 * sqrtPriceX96;
  const q192 = 1n << 192n;
  const zeroForOne = sorted(tokenIn, tokenOut)[0] === tokenIn;
  return zeroForOne ? { num: squared, den: q192 } : { num: q192, den: squared };
}

/**
 * How far the execution price (amountOut / amountIn) falls below the route's mid price (the product of its
 * hops' mid prices), in basis points, rounded down; 0 when it does not fall. LP fees count as impact, as in
 * the Uniswap SDK's priceImpact.
 */
export function priceImpactBps(amountIn: bigint, amountOut: bigint, mids: readonly Ratio[]): number {
  let num = amountIn;
  let den = 1n;
  for (const mid of mids) {
    num *= mid.num;
    den *= mid.den;
  }
  // ideal = num / den; impact = (ideal - out) / ideal = (num - out * den) / num
  if (num <= 0n) return 0;
  const shortfall = num - amountOut * den;
  if (shortfall <= 0n) return 0;
  return Number((shortfall * BPS) / num);
}

/**
 * The route with the most output; ties go to fewer hops, then V2 (cheaper to execute). Routes with no output
 * (a missing pair or pool) never win. Undefined when no route has output.
 */
export function bestRoute<T extends { route: Route; amountOut: bigint }>(quotes: readonly T[]): T | undefined {
  let best: T | undefined;
  for (const quote of quotes) {
    if (quote.amountOut <= 0n) continue;
    if (!best || better(quote, best)) best = quote;
  }
  return best;
}

function better(a: { route: Route; amountOut: bigint }, b: { route: Route; amountOut: bigint }): boolean {
  if (a.amountOut !== b.amountOut) return a.amountOut > b.amountOut;
  if (a.route.hops.length !== b.route.hops.length) return a.route.hops.length < b.route.hops.length;
  return a.route.kind === "v2" && b.route.kind === "v3";
}

/** decisions.md: fee = max(swapMinFee, ceil(sellAmount × swapFeeBps / 10000)), taken out of sellAmount. */
export function swapFee(sellAmount: bigint, swapFeeBps: number, swapMinFee: bigint): bigint {
  const proportional = (sellAmount * BigInt(swapFeeBps) + BPS - 1n) / BPS;
  return proportional > swapMinFee ? proportional : swapMinFee;
}

/** issue 12: minBuyAmount = floor(buyAmount × (10000 − slippageBps) / 10000). */
export function minBuyAmount(buyAmount: bigint, slippageBps: number): bigint {
  if (!Number.isInteger(slippageBps) || slippageBps < 0 || slippageBps > 10_000) {
    throw new Error("slippageBps must be an integer from 0 to 10000");
  }
  return (buyAmount * (BPS - BigInt(slippageBps))) / BPS;
}
