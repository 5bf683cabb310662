import type { Static } from "elysia";
import type { NetworkRuntime, Networks } from "../chain/networks";
import type { Db } from "../db/open";
import type { DenyCounters } from "../deny/deny-counters";
import type { Logger } from "../logger";
import type { RelayerPort } from "../payments/relayer-port";
import { quoteSwap, swapNetwork } from "./quote-swap";
import type { SwapQuoteBodySchema } from "./schemas";
import { createSwapSettler } from "./settle-swap";
import { parseSwapAuthorization, type SwapBody } from "./swap-authorization";
import { createSwapSettlementStore } from "./swap-store";
import { type SwapVerifyContext, verifySwap } from "./verify-swap";

/** Swaps as the routes see them: one body in, one result out. */
export function createSwaps(deps: {
  db: Db;
  networks: Networks;
  relayerFor(network: NetworkRuntime): RelayerPort;
  deny: DenyCounters;
  now: () => bigint;
  logger: Logger;
}) {
  const store = createSwapSettlementStore(deps.db);
  const settler = createSwapSettler({
    store,
    logger: deps.logger,
    onPayerRevert: (network, payer) => deps.deny.recordRevert(network.name, "payer", payer, "swap reverted"),
  });
  const contextOf = (body: SwapBody): SwapVerifyContext => {
    const { network, swap } = swapNetwork(deps.networks, body.swapRequirements.network, "swapRequirements.network");
    return {
      network,
      swap,
      now: deps.now,
      domain: () => deps.relayerFor(network).domain(),
      isPayerDenied: (payer) => deps.deny.isDenied(network.name, "payer", payer),
    };
  };
  return {
    store,
    /** Finishes the swap settlements a previous process left unfinished (called once at start). */
    reconcile: () => settler.reconcile(deps.networks),
    quote(body: Static<typeof SwapQuoteBodySchema>) {
      return quoteSwap(
        { networks: deps.networks, now: deps.now, domainOf: (network) => deps.relayerFor(network).domain() },
        body,
      );
    },
    async verify(body: SwapBody) {
      const { authorization, signature } = parseSwapAuthorization(body.swapPayload);
      const verdict = await verifySwap(
        contextOf(body),
        authorization,
        signature,
        body.swapRequirements.relayerContract,
      );
      if (verdict.isValid) return { isValid: true, payer: verdict.payer, buyAmount: verdict.buyAmount.toString() };
      return {
        isValid: false,
        payer: verdict.payer,
        invalidReason: verdict.invalidReason,
        invalidMessage: verdict.invalidMessage,
        ...(verdict.buyAmount !== undefined ? { buyAmount: verdict.buyAmount.toString() } : {}),
      };
    },
    settle(body: SwapBody) {
      const { authorization, signature } = parseSwapAuthorization(body.swapPayload);
      return settler.settle(contextOf(body), authorization, signature, body.swapRequirements.relayerContract);
    },
  };
}

export type Swaps = ReturnType<typeof createSwaps>;
