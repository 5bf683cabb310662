import type { Static } from "@sinclair/typebox";
import { type Address, getAddress, type Hex, isAddressEqual, keccak256 } from "viem";
import { Relay402ClientError } from "./errors.js";
import type { NetworkConfig, TokenConfig } from "./get-config.js";
import { encodePath } from "./wire/swap/path.js";
import { minBuyAmount as slippageFloor, swapFee } from "./wire/swap/quote-math.js";
import type { SwapQuoteResponseSchema } from "./wire/swap/schemas.js";
import { SWAP_WITH_AUTHORIZATION_TYPES } from "./wire/swap/typed-data.js";

export type SwapQuote = Static<typeof SwapQuoteResponseSchema>;

/** The caller's floor on the output: an absolute minimum, or a slippage below the quoted buyAmount (default 50 bps). */
export type SwapBound =
  | { minBuyAmount: bigint; slippageBps?: undefined }
  | { slippageBps?: number; minBuyAmount?: undefined };

export const DEFAULT_SWAP_SLIPPAGE_BPS = 50;

/** What the caller asked for and what /config says: the swap the client is willing to sign. */
export type ExpectedSwap = {
  sellToken: Address;
  buyToken: Address;
  sellAmount: bigint;
  recipient: Address;
  bound: SwapBound;
  /** The sell token's swap fees from /config. */
  fees: Pick<TokenConfig["fees"], "swapFeeBps" | "swapMinFee" | "feeBps" | "minFee">;
  /** The relayer of /config: the only contract a swap is signed for and goes through. */
  relayer: Address;
  chainId: number;
};

export type ExpectedEoaSwap = ExpectedSwap & {
  from: Address;
  /** The relayer's EIP-712 domain as /config reads it. */
  domain: NonNullable<NetworkConfig["eip712Domain"]>;
};

const refuse = (field: string, message: string) =>
  new Relay402ClientError("unexpected_response", `the service's swap quote ${message}`, { field });

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Every type of a typed data's `types` as its EIP-712 string, so that two spellings of one type compare equal. */
const typeString = (types: Record<string, readonly { name: string; type: string }[]>) =>
  Object.entries(types)
    .filter(([name]) => name !== "EIP712Domain")
    .map(([name, fields]) => `${name}(${fields.map((field) => `${field.type} ${field.name}`).join(",")})`)
    .join(";");

/** The fee /config's rule asks for a swap of `sellAmount` (inside sellAmount); swap fees default to the payment fees. */
export function expectedSwapFee(fees: ExpectedSwap["fees"], sellAmount: bigint): bigint {
  return swapFee(sellAmount, fees.swapFeeBps ?? fees.feeBps, BigInt(fees.swapMinFee ?? fees.minFee));
}

/**
 * The lowest minBuyAmount the caller accepts: its own minimum, or its slippage below the quoted buyAmount. The
 * slippage floor trusts the quote's buyAmount (the service's price); pass `minBuyAmount` for a floor that does not.
 */
export function swapFloor(bound: SwapBound, quotedBuyAmount: bigint): bigint {
  if (bound.minBuyAmount !== undefined) return bound.minBuyAmount;
  return slippageFloor(quotedBuyAmount, bound.slippageBps ?? DEFAULT_SWAP_SLIPPAGE_BPS);
}

/**
 * The order fields every swap the client signs must have, whoever built it (the quote's typed data for an EOA,
 * the swapBatch order in a wallet's UserOp): the tokens and amount asked for, the caller's recipient, the fee of
 * /config's rule (no more: it comes out of sellAmount), and a minimum not below the caller's floor.
 */
export function assertSwapOrder(
  order: {
    sellToken: string;
    buyToken: string;
    sellAmount: bigint;
    recipient: string;
    fee: bigint;
    minBuyAmount: bigint;
  },
  expected: ExpectedSwap,
  floor: bigint,
  refusal: (field: string, message: string) => Relay402ClientError,
): void {
  if (!same(order.sellToken, expected.sellToken)) throw refusal("sellToken", `sells ${order.sellToken}`);
  if (!same(order.buyToken, expected.buyToken)) throw refusal("buyToken", `buys ${order.buyToken}`);
  if (order.sellAmount !== expected.sellAmount) {
    throw refusal("sellAmount", `sells ${order.sellAmount}, not ${expected.sellAmount}`);
  }
  if (!same(order.recipient, expected.recipient)) {
    throw refusal("recipient", `sends the output to ${order.recipient}, not ${expected.recipient}`);
  }
  const fee = expectedSwapFee(expected.fees, expected.sellAmount);
  if (order.fee !== fee) throw refusal("fee", `charges a fee of ${order.fee}, not ${fee} as /config's rule says`);
  if (order.minBuyAmount === 0n || order.minBuyAmount < floor) {
    throw refusal("minBuyAmount", `accepts as little as ${order.minBuyAmount}, below the caller's floor ${floor}`);
  }
}

/**
 * The quote's route as the relayer takes it: its `path` must be the packed form of its hops (the route shown is the
 * route signed), run from the sell token to the buy token, and be what the typed data signs (router, routeHash).
 */
function assertQuotedRoute(quote: SwapQuote, expected: ExpectedSwap): { router: Address; path: Hex } {
  const hops = quote.route;
  const kind = hops[0]?.kind;
  if (!kind || hops.some((hop) => hop.kind !== kind)) throw refuse("route", "has no route of one kind");
  let path: Hex;
  try {
    path = encodePath(
      kind,
      hops.map((hop) => ({ tokenIn: hop.tokenIn as Address, tokenOut: hop.tokenOut as Address, fee: hop.fee })),
    );
  } catch (error) {
    throw refuse("route", `has no valid path (${(error as Error).message})`);
  }
  if (!same(path, quote.path)) throw refuse("path", "is not the packed path of its route");
  if (!same(hops[0]?.tokenIn ?? "", expected.sellToken) || !same(hops.at(-1)?.tokenOut ?? "", expected.buyToken)) {
    throw refuse("route", "does not run from the sell token to the buy token");
  }
  const message = quote.typedData?.message;
  if (message && (!same(message.router, quote.router) || !same(message.routeHash, keccak256(path)))) {
    throw refuse("typedData.message.routeHash", "signs another route than the one it shows");
  }
  return { router: getAddress(quote.router), path };
}

/**
 * Refuses a /swap/quote answer (mode "eoa") that is not the swap the caller asked for, before anything is signed,
 * and returns the SwapWithAuthorization the client signs. The client does not sign the quote's typed data as it
 * comes: it checks each field against the request and /config (the relayer of /config named, the relayer's domain
 * on this chain, the signed type itself, from, tokens, amount, recipient, the fee of the rule, a minimum not
 * below the caller's floor, the route it shows), then signs its own message with those values and its own window
 * and nonce. `path` is what the body carries beside the signature (its keccak256 is the signed routeHash).
 */
export function assertSwapQuote(
  quote: SwapQuote,
  expected: ExpectedEoaSwap,
  signing: { validAfter: number; validBefore: number; nonce: Hex },
) {
  if (!isAddressEqual(quote.relayerContract as Address, expected.relayer)) {
    throw refuse("relayerContract", `names relayer ${quote.relayerContract}, not the relayer of /config`);
  }
  const typedData = quote.typedData;
  if (!typedData) throw refuse("typedData", "has no typed data to sign (asked with mode eoa)");
  if (typedData.primaryType !== "SwapWithAuthorization") {
    throw refuse("typedData.primaryType", `asks to sign ${typedData.primaryType}`);
  }
  if (typeString(typedData.types) !== typeString(SWAP_WITH_AUTHORIZATION_TYPES)) {
    throw refuse("typedData.types", "asks to sign another type than SwapWithAuthorization");
  }
  const { domain } = typedData;
  if (
    domain.name !== expected.domain.name ||
    domain.version !== expected.domain.version ||
    domain.chainId !== expected.chainId ||
    !same(domain.verifyingContract, expected.relayer)
  ) {
    throw refuse("typedData.domain", "is for another domain than the relayer's of /config on this chain");
  }
  const message = typedData.message;
  if (!same(message.from, expected.from)) throw refuse("typedData.message.from", `is signed for ${message.from}`);
  const floor = swapFloor(expected.bound, BigInt(quote.buyAmount));
  const order = {
    sellToken: message.sellToken,
    buyToken: message.buyToken,
    sellAmount: BigInt(message.sellAmount),
    recipient: message.recipient,
    fee: BigInt(message.fee),
    minBuyAmount: BigInt(message.minBuyAmount),
  };
  assertSwapOrder(order, expected, floor, (field, text) => refuse(`typedData.message.${field}`, text));
  const route = assertQuotedRoute(quote, expected);
  const authorization = {
    from: expected.from,
    sellToken: expected.sellToken,
    buyToken: expected.buyToken,
    sellAmount: expected.sellAmount,
    minBuyAmount: order.minBuyAmount,
    recipient: expected.recipient,
    fee: order.fee,
    router: route.router,
    routeHash: keccak256(route.path),
    validAfter: BigInt(signing.validAfter),
    validBefore: BigInt(signing.validBefore),
    nonce: signing.nonce,
  };
  return { authorization, path: route.path };
}
