import { asAsync } from "../db/async-port";
import type { Flow } from "../flow";
import { SWAP_EXAMPLES, WALLET_SWAP_EXAMPLES } from "./examples";
import { swapRoutes } from "./routes";
import { createSwapSettlementStore } from "./swap-store";
import type { AsyncSwapSettlementStore } from "./swap-store-postgres";
import { swapWiringProblem } from "./swap-wiring";
import { createSwaps, type Swaps } from "./swaps";

/** Swaps on whitelisted DEX routers: EOA swaps through the relayer, smart-wallet swaps as UserOps. */
export const swapsFlow: Flow<"swaps", Swaps, AsyncSwapSettlementStore> = {
  name: "swaps",
  store: {
    sqlite: (db) => asAsync(createSwapSettlementStore(db)),
    postgres: async () => (await import("./swap-store-postgres")).createSwapSettlementStorePostgres,
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
      inFlight: context.inFlightUserOps,
    }),
  routes: (swaps) => swapRoutes(swaps),
  openapi: {
    tags: [
      {
        name: "Swaps",
        order: 40,
        description: `Exact-in swaps on the whitelisted DEX routers, gas paid by the service, the fee taken out of the sold token.
1. \`POST /swap/quote\` for the best route, \`fee\`, \`buyAmount\` and \`minBuyAmount\` (\`mode: "eoa"\` with \`from\` adds the typed data to sign).
2. Once per sell token: \`approve(relayer, amount)\`. Sign \`SwapWithAuthorization\` on the relayer's domain: it binds the minimum output and the recipient.
3. \`POST /swap/verify\` (simulates the swap, answers \`buyAmount\`) and \`POST /swap/settle\` (sends it on the best route now; idempotent per network, payer and nonce). The relayer pays the recipient at least \`minBuyAmount\` or reverts.

Smart wallet: \`POST /wallet/swap/verify\` quotes, simulates and answers the sponsored UserOp (approve + \`Relayer.swapBatch\` with the minimum and the recipient); the owner signs \`userOpHash\`; \`POST /wallet/swap/settle\` checks the price again, sends it at most once and answers \`swap\` from the relayer's \`SwapExecuted\`.`,
      },
    ],
    examples: { ...SWAP_EXAMPLES, ...WALLET_SWAP_EXAMPLES },
  },
  sending: { "/swap/settle": "swap", "/wallet/swap/settle": "wallet_swap" },
  capability: "swaps",
  reconcile: (swaps, which) => swaps.reconcile(which),
  resume: (swaps, which) => swaps.reconcile(which),
  // A router the relayer does not whitelist switches swaps off on its network, not the whole service.
  unavailableOn: (name, network, call) =>
    network.swap && network.contracts.relayer
      ? swapWiringProblem(
          name,
          network.contracts.relayer,
          network.swap,
          network.tokens.map((token) => token.address),
          call,
        )
      : Promise.resolve(undefined),
};
