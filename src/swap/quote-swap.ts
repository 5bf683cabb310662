import { encodePath } from "@relay402/client/wire/swap/path";
import { bestRoute, minBuyAmount, swapFee } from "@relay402/client/wire/swap/quote-math";
import type { SwapQuoteBodySchema } from "@relay402/client/wire/swap/schemas";
import { SWAP_WITH_AUTHORIZATION_TYPES } from "@relay402/client/wire/swap/typed-data";
import type { Static } from "@sinclair/typebox";
import { type Address, getAddress, type Hex, isAddressEqual, keccak256, toHex } from "viem";
import { MULTICALL3 } from "../chain/addresses";
import type { NetworkRuntime, Networks } from "../chain/networks";
import { relayerOf } from "../config/capabilities";
import type { SwapConfig, TokenConfig } from "../config/schema";
import type { RelayerDomain } from "../settlement/relayer-port";
import { invalid } from "../userops/invalid";
import { decodeAggregate3, encodeAggregate3, planQuote, type QuoteDexes, type RouteQuote } from "./quote-plan";
import { uint256 } from "./swap-authorization";

type SwapQuoteBody = Static<typeof SwapQuoteBodySchema>;

export const DEFAULT_SLIPPAGE_BPS = 50;
export const MAX_SLIPPAGE_BPS = 500;
/** decisions.md: the quote's validBefore is a suggestion, now + 120 s. */
export const QUOTE_VALIDITY_SECONDS = 120n;

/** The configured routers as quoting sees them (config allows at most one per kind). */
export function dexesOf(swap: SwapConfig): QuoteDexes {
  const v2 = swap.routers.find((router) => router.kind === "v2");
  const v3 = swap.routers.find((router) => router.kind === "v3");
  return {
    ...(v2 ? { v2: { name: v2.name, factory: v2.factory, initCodeHash: v2.initCodeHash, feeBps: v2.feeBps } } : {}),
    ...(v3 && swap.quoter
      ? {
          v3: {
            name: v3.name,
            factory: v3.factory,
            initCodeHash: v3.initCodeHash,
            quoter: swap.quoter,
            feeTiers: v3.feeTiers,
          },
        }
      : {}),
  };
}

/** The best route's quote and the router that executes it. */
export type BestQuote = RouteQuote & { router: Address };

/**
 * Every candidate route quoted in one eth_call (Multicall3 aggregate3: V2 reserves, QuoterV2 per V3 route,
 * slot0 for mid prices), the best net output picked locally. Undefined when no route has output.
 */
export async function quoteBestRoute(
  network: NetworkRuntime,
  swap: SwapConfig,
  order: { sellToken: Address; buyToken: Address; amountIn: bigint },
): Promise<BestQuote | undefined> {
  const plan = planQuote({ ...order, connectors: swap.connectors, dexes: dexesOf(swap) });
  if (plan.calls.length === 0) return undefined;
  const { data } = await network.client.call({ to: MULTICALL3, data: encodeAggregate3(plan.calls) });
  const best = bestRoute(plan.evaluate(decodeAggregate3(data ?? "0x")));
  if (!best) return undefined;
  const router = swap.routers.find((candidate) => candidate.kind === best.route.kind);
  if (!router) return undefined;
  return { ...best, router: router.address };
}

/** The swap settings of a network, or the validation_error decisions.md gives for an unknown network. */
export function swapNetwork(networks: Networks, name: string, field: string) {
  if (!networks.enabled.includes(name as never)) {
    throw invalid(field, `network not enabled: ${name} (valid: ${networks.enabled.join(", ")})`, {
      validNetworks: networks.enabled,
    });
  }
  const network = networks.get(name, { capability: "swaps", field });
  const swap = network.config.swap;
  if (!swap) throw invalid(field, `swaps are not enabled on ${name}`);
  return { network, swap };
}

/** A sell token the service takes a swap fee in (a config token, which the relayer whitelists). */
export function sellTokenConfig(network: NetworkRuntime, sellToken: string, field: string): TokenConfig {
  const token = network.token(sellToken);
  if (!token) {
    throw invalid(field, `not a whitelisted sell token on ${network.name}`, {
      validTokens: network.config.tokens.map((t) => t.address),
    });
  }
  return token;
}

/** The fee the rule asks for a swap of `sellAmount` (decisions.md: inside sellAmount). */
export const swapFeeFor = (token: TokenConfig, sellAmount: bigint) =>
  swapFee(sellAmount, token.swapFeeBps, token.swapMinFee);

/** A route as quotes and verify answers show it: one entry per hop. */
export const wireRoute = (best: BestQuote) =>
  best.route.hops.map((hop) => ({
    dex: best.dex,
    kind: best.route.kind,
    tokenIn: hop.tokenIn,
    tokenOut: hop.tokenOut,
    ...(hop.fee !== undefined ? { fee: hop.fee } : {}),
  }));

type Slippage = { slippageBps?: number; minBuyAmount?: string };

/** issue 12: slippageBps or minBuyAmount (not both), slippage at most 500, a minimum above zero. */
export function checkSlippage(input: Slippage, prefix: string): void {
  if (input.slippageBps !== undefined && input.minBuyAmount !== undefined) {
    throw invalid(`${prefix}slippageBps`, "send slippageBps or minBuyAmount, not both");
  }
  if (input.slippageBps !== undefined && input.slippageBps > MAX_SLIPPAGE_BPS) {
    throw invalid(`${prefix}slippageBps`, `at most ${MAX_SLIPPAGE_BPS}`, { maximum: MAX_SLIPPAGE_BPS });
  }
  if (input.minBuyAmount !== undefined && uint256(input.minBuyAmount, `${prefix}minBuyAmount`) === 0n) {
    throw invalid(`${prefix}minBuyAmount`, "must be greater than zero");
  }
}

/**
 * The minimum to sign for a quoted `buyAmount`: from slippageBps (default 50), or the caller's own minBuyAmount
 * with the slippage it allows, rounded down (0 when it asks for more than the quote).
 */
export function signedMinimum(buyAmount: bigint, input: Slippage): { minBuyAmount: bigint; slippageBps: number } {
  if (input.minBuyAmount === undefined) {
    const slippageBps = input.slippageBps ?? DEFAULT_SLIPPAGE_BPS;
    return { minBuyAmount: minBuyAmount(buyAmount, slippageBps), slippageBps };
  }
  const minimum = BigInt(input.minBuyAmount);
  const allowed = buyAmount > minimum ? ((buyAmount - minimum) * 10_000n) / buyAmount : 0n;
  return { minBuyAmount: minimum, slippageBps: Number(allowed) };
}

/** POST /swap/quote: reads the chain once, writes nothing. */
export async function quoteSwap(
  deps: { networks: Networks; now: () => bigint; domainOf(network: NetworkRuntime): Promise<RelayerDomain> },
  body: SwapQuoteBody,
) {
  const { network, swap } = swapNetwork(deps.networks, body.network, "network");
  const token = sellTokenConfig(network, body.sellToken, "sellToken");
  const sellToken = getAddress(token.address);
  const buyToken = getAddress(body.buyToken);
  if (isAddressEqual(sellToken, buyToken)) throw invalid("buyToken", "must differ from sellToken");
  const sellAmount = uint256(body.sellAmount, "sellAmount");
  if (sellAmount === 0n) throw invalid("sellAmount", "must be greater than zero");
  checkSlippage(body, "");
  const fee = swapFeeFor(token, sellAmount);
  if (fee >= sellAmount) {
    throw invalid("sellAmount", `must exceed the swap fee (${fee})`, { fee: fee.toString() });
  }
  if (body.mode === "eoa" && !body.from) throw invalid("from", "the payer is needed for mode eoa (it signs)");

  const best = await quoteBestRoute(network, swap, { sellToken, buyToken, amountIn: sellAmount - fee });
  if (!best) throw invalid("buyToken", `no route from ${sellToken} to ${buyToken} on ${network.name}`);

  const buyAmount = best.amountOut;
  const { minBuyAmount: minimum, slippageBps } = signedMinimum(buyAmount, body);
  const now = deps.now();
  const validBefore = Number(now + QUOTE_VALIDITY_SECONDS);
  const relayerContract = relayerOf(network, "swaps");
  const path = encodePath(best.route.kind, best.route.hops);
  const answer = {
    network: network.name,
    sellToken,
    buyToken,
    sellAmount: sellAmount.toString(),
    fee: fee.toString(),
    buyAmount: buyAmount.toString(),
    minBuyAmount: minimum.toString(),
    slippageBps,
    route: wireRoute(best),
    router: best.router,
    path,
    priceImpactBps: best.priceImpactBps,
    validBefore,
    relayerContract,
  };
  if (body.mode !== "eoa" || !body.from) return answer;

  const from = getAddress(body.from);
  const domain = await deps.domainOf(network);
  return {
    ...answer,
    typedData: {
      domain,
      types: { SwapWithAuthorization: [...SWAP_WITH_AUTHORIZATION_TYPES.SwapWithAuthorization] },
      primaryType: "SwapWithAuthorization" as const,
      message: {
        from,
        sellToken,
        buyToken,
        sellAmount: answer.sellAmount,
        minBuyAmount: answer.minBuyAmount,
        recipient: body.recipient ? getAddress(body.recipient) : from,
        fee: answer.fee,
        router: best.router,
        routeHash: keccak256(path),
        validAfter: Number(now) - 60,
        validBefore,
        nonce: toHex(crypto.getRandomValues(new Uint8Array(32))) as Hex,
      },
    },
  };
}
