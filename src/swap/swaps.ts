import type { Static } from "elysia";
import type { NetworkRuntime, Networks } from "../chain/networks";
import type { RelayerPort } from "../payments/relayer-port";
import { quoteSwap } from "./quote-swap";
import type { SwapQuoteBodySchema } from "./schemas";

/** Swaps as the routes see them: one body in, one result out. */
export function createSwaps(deps: {
  networks: Networks;
  relayerFor(network: NetworkRuntime): RelayerPort;
  now: () => bigint;
}) {
  return {
    quote(body: Static<typeof SwapQuoteBodySchema>) {
      return quoteSwap(
        { networks: deps.networks, now: deps.now, domainOf: (network) => deps.relayerFor(network).domain() },
        body,
      );
    },
  };
}

export type Swaps = ReturnType<typeof createSwaps>;
