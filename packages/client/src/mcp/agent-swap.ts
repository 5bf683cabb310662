import { type Address, formatUnits, parseUnits } from "viem";
import { Relay402ClientError } from "../errors.js";
import { getNetworkConfig, type NetworkConfig, type TokenConfig } from "../get-config.js";
import { quoteSwap, swap } from "../swap.js";
import type { NetworkName } from "../types.js";
import { idempotentNonce, type PaymentContext } from "./agent-payment.js";
import { withChainDecimals } from "./chain-facts.js";
import { logPayment, type Refusal, refuse, reserveSpend, safeMessage, spendRules } from "./spend-policy.js";

export type SwapRequest = {
  network: NetworkName;
  /** Addresses or symbols of /config. */
  sellToken: string;
  buyToken: string;
  /** In sellToken units, the fee included. */
  sellAmount: string;
  slippageBps?: number;
};

const tokenIn = (config: NetworkConfig, text: string): TokenConfig | undefined =>
  config.tokens.find(
    (t) => t.address.toLowerCase() === text.toLowerCase() || t.symbol.toLowerCase() === text.toLowerCase(),
  );

type Resolved = { config: NetworkConfig; sell: TokenConfig; buy: TokenConfig; sellAmount: bigint };

async function resolve(context: PaymentContext, request: SwapRequest): Promise<Refusal | Resolved> {
  const config = await getNetworkConfig(context.relay402, request.network);
  if (!config.swap) return refuse("validation_error", `swaps are off on ${request.network}`);
  if (config.chainId !== (await context.chain.chainIdOf(request.network))) {
    return refuse("validation_error", `the service's ${request.network} is not the chain of this agent's RPC`);
  }
  const listedSell = tokenIn(config, request.sellToken);
  const listedBuy = tokenIn(config, request.buyToken);
  if (!listedSell || !listedBuy) return refuse("validation_error", `both tokens must be offered on ${request.network}`);
  const sell = await withChainDecimals(context.chain, request.network, listedSell);
  const buy = await withChainDecimals(context.chain, request.network, listedBuy);
  const fraction = request.sellAmount.split(".")[1] ?? "";
  const sellAmount = fraction.length > sell.decimals ? 0n : parseUnits(request.sellAmount, sell.decimals);
  if (sellAmount <= 0n) {
    return refuse("validation_error", `sellAmount must be positive with at most ${sell.decimals} decimals`);
  }
  return { config, sell, buy, sellAmount };
}

/** `/swap/quote` for this agent: what it would receive, the fee and the minimum, in token units. Signs nothing. */
export async function quoteAgentSwap(context: PaymentContext, request: SwapRequest) {
  const resolved = await resolve(context, request);
  if ("status" in resolved) return resolved;
  const { sell, buy, sellAmount } = resolved;
  const quote = await quoteSwap(context.relay402, {
    network: request.network,
    sellToken: sell.address,
    buyToken: buy.address,
    sellAmount,
    slippageBps: request.slippageBps,
  });
  return {
    network: request.network,
    sell: { token: sell.address, symbol: sell.symbol, amount: request.sellAmount },
    buy: {
      token: buy.address,
      symbol: buy.symbol,
      amount: formatUnits(BigInt(quote.buyAmount), buy.decimals),
      minimum: formatUnits(BigInt(quote.minBuyAmount), buy.decimals),
    },
    fee: `${formatUnits(BigInt(quote.fee), sell.decimals)} ${sell.symbol}`,
  };
}

/**
 * An EOA swap to the agent itself: the sell amount counts against the sell token's limits (reserved before
 * signing), the nonce comes from the idempotency key as a payment's does, and the client refuses a quote that is
 * not what was asked before signing it.
 */
export async function swapWithinLimits(context: PaymentContext, request: SwapRequest & { idempotencyKey: string }) {
  const outcome = await attempt(context, request).catch((error) => refuse("swap_failed", safeMessage(error)));
  logPayment(context.logFile, {
    tool: "relay402_swap",
    network: request.network,
    sellToken: request.sellToken,
    buyToken: request.buyToken,
    amount: request.sellAmount,
    to: context.settings.account.address,
    idempotencyKey: request.idempotencyKey,
    ...(outcome.status === "refused"
      ? { result: "refused", code: outcome.code, limit: outcome.limit }
      : { result: outcome.repeated ? "repeated" : "swapped", transaction: outcome.transaction }),
  });
  return outcome;
}

async function attempt(
  context: PaymentContext,
  request: SwapRequest & { idempotencyKey: string },
): Promise<
  Refusal | { status: "swapped"; transaction: string; repeated: boolean; bought?: string; boughtBaseUnits?: string }
> {
  const resolved = await resolve(context, request);
  if ("status" in resolved) return resolved;
  const { config, sell, buy, sellAmount } = resolved;
  const self: Address = context.settings.account.address;
  const rules = await spendRules(context.settings, context.chain, config, request.network, sell.address, self);
  if ("status" in rules) return rules;
  const entry = {
    key: `swap:${request.network}:${request.idempotencyKey}`,
    network: request.network,
    token: sell.address,
    to: self,
    amount: sellAmount.toString(),
    at: Date.now(),
  };
  const reservation = await reserveSpend(context.ledger, entry, rules.caps, sell);
  if ("status" in reservation) return reservation;
  const previous = reservation.existing;
  if (previous?.state === "paid" && previous.transaction) {
    return { status: "swapped", transaction: previous.transaction, repeated: true };
  }
  const { signer, publicClient } = await context.clientsFor(request.network);
  try {
    const result = await swap(context.relay402, signer, {
      network: request.network,
      sellToken: sell.address,
      buyToken: buy.address,
      sellAmount,
      slippageBps: request.slippageBps,
      publicClient,
      nonce: idempotentNonce(self, `swap:${request.idempotencyKey}`),
    });
    await context.ledger.settle({ ...entry, state: "paid", transaction: result.settlement.transaction });
    return {
      status: "swapped",
      transaction: result.settlement.transaction,
      repeated: false,
      bought: `${formatUnits(BigInt(result.settlement.swap.buyAmount), buy.decimals)} ${buy.symbol}`,
      boughtBaseUnits: `${result.settlement.swap.buyAmount}`,
    };
  } catch (error) {
    // A refusal of the service (a quote the client would not sign, a failed verify, a reverted settle) moved
    // nothing; a lost answer, a pending settlement or a used nonce may have: those stay counted.
    const nothingMoved =
      error instanceof Relay402ClientError &&
      !["network_error", "nonce_error", "unexpected_response"].includes(error.code) &&
      !error.isPending;
    if (nothingMoved && !previous) {
      await context.ledger.settle({ ...entry, state: "released" });
    }
    return refuse(error instanceof Relay402ClientError ? error.code : "swap_failed", safeMessage(error));
  }
}
