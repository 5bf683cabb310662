import type { Static } from "elysia";
import { type Address, getAddress, type Hex, isAddressEqual, toHex } from "viem";
import { MULTICALL3 } from "../chain/addresses";
import type { NetworkRuntime, Networks } from "../chain/networks";
import type { SwapConfig, TokenConfig } from "../config/schema";
import { ApiError } from "../errors";
import type { RelayerDomain } from "../payments/relayer-port";
import { bestRoute, minBuyAmount, swapFee } from "./quote-math";
import { decodeAggregate3, encodeAggregate3, planQuote, type QuoteDexes, type RouteQuote } from "./quote-plan";
import type { SwapQuoteBodySchema } from "./schemas";
import { uint256 } from "./swap-authorization";
import { SWAP_WITH_AUTHORIZATION_TYPES } from "./typed-data";

type SwapQuoteBody = Static<typeof SwapQuoteBodySchema>;

export const DEFAULT_SLIPPAGE_BPS = 50;
export const MAX_SLIPPAGE_BPS = 500;
/** decisions.md: the quote's validBefore is a suggestion, now + 120 s. */
export const QUOTE_VALIDITY_SECONDS = 120n;

const invalid = (field: string, message: string, details: Record<string, unknown> = {}) =>
  new ApiError("validation_error", `${field}: ${message}`, { field, ...details });

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
  const network = networks.get(name);
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
  if (body.slippageBps !== undefined && body.minBuyAmount !== undefined) {
    throw invalid("slippageBps", "send slippageBps or minBuyAmount, not both");
  }
  if (body.slippageBps !== undefined && body.slippageBps > MAX_SLIPPAGE_BPS) {
    throw invalid("slippageBps", `at most ${MAX_SLIPPAGE_BPS}`, { maximum: MAX_SLIPPAGE_BPS });
  }
  if (body.minBuyAmount !== undefined && uint256(body.minBuyAmount, "minBuyAmount") === 0n) {
    throw invalid("minBuyAmount", "must be greater than zero");
  }
  const fee = swapFeeFor(token, sellAmount);
  if (fee >= sellAmount) {
    throw invalid("sellAmount", `must exceed the swap fee (${fee})`, { fee: fee.toString() });
  }
  if (body.mode === "eoa" && !body.from) throw invalid("from", "the payer is needed for mode eoa (it signs)");

  const best = await quoteBestRoute(network, swap, { sellToken, buyToken, amountIn: sellAmount - fee });
  if (!best) throw invalid("buyToken", `no route from ${sellToken} to ${buyToken} on ${network.name}`);

  const buyAmount = best.amountOut;
  let slippageBps = body.slippageBps ?? DEFAULT_SLIPPAGE_BPS;
  let minimum = minBuyAmount(buyAmount, slippageBps);
  if (body.minBuyAmount !== undefined) {
    minimum = BigInt(body.minBuyAmount);
    // The slippage a given minimum allows, rounded down (0 when it asks for more than the quote).
    const allowed = buyAmount > minimum ? ((buyAmount - minimum) * 10_000n) / buyAmount : 0n;
    slippageBps = Number(allowed);
  }
  const now = deps.now();
  const validBefore = Number(now + QUOTE_VALIDITY_SECONDS);
  const relayerContract = network.config.contracts.relayer;
  const answer = {
    network: network.name,
    sellToken,
    buyToken,
    sellAmount: sellAmount.toString(),
    fee: fee.toString(),
    buyAmount: buyAmount.toString(),
    minBuyAmount: minimum.toString(),
    slippageBps,
    route: best.route.hops.map((hop) => ({
      dex: best.dex,
      kind: best.route.kind,
      tokenIn: hop.tokenIn,
      tokenOut: hop.tokenOut,
      ...(hop.fee !== undefined ? { fee: hop.fee } : {}),
    })),
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
        validAfter: Number(now) - 60,
        validBefore,
        nonce: toHex(crypto.getRandomValues(new Uint8Array(32))) as Hex,
      },
    },
  };
}
