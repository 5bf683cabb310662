import { asAsync } from "../db/async-port";
import type { Flow } from "../flow";
import { swapRoutes } from "./routes";
import { createSwapSettlementStore } from "./swap-store";
import { type AsyncSwapSettlementStore, createSwapSettlementStorePostgres } from "./swap-store-postgres";
import { swapWiringProblem } from "./swap-wiring";
import { createSwaps, type Swaps } from "./swaps";

/** Swaps on whitelisted DEX routers: EOA swaps through the relayer, smart-wallet swaps as UserOps. */
export const swapsFlow: Flow<"swaps", Swaps, AsyncSwapSettlementStore> = {
  name: "swaps",
  store: {
    sqlite: (db) => asAsync(createSwapSettlementStore(db)),
    postgres: (db) => createSwapSettlementStorePostgres(db),
  },
  create: (context, store) =>
    createSwaps({
      store,
      networks: context.networks,
      relayerFor: context.relayerFor,
      deny: context.deny,
      now: context.now,
      logger: context.logger,
      issued: context.issued,
      paymasterValiditySeconds: context.config.paymasterValiditySeconds,
    }),
  routes: (swaps) => swapRoutes(swaps),
  sending: { "/swap/settle": "swap", "/wallet/swap/settle": "wallet_swap" },
  reconcile: (swaps, which) => swaps.reconcile(which),
  // A router the relayer does not whitelist switches swaps off on its network, not the whole service.
  unavailableOn: (name, network, call) =>
    network.swap
      ? swapWiringProblem(
          name,
          network.contracts.relayer,
          network.swap,
          network.tokens.map((token) => token.address),
          call,
        )
      : Promise.resolve(undefined),
};
