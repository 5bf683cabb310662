import { asAsync } from "../db/async-port";
import type { Flow } from "../flow";
import { createX402Facilitator, type X402Facilitator } from "./facilitator";
import { x402Routes } from "./routes";
import { createX402SettlementStore } from "./settlement-store";
import { type AsyncX402SettlementStore, createX402SettlementStorePostgres } from "./settlement-store-postgres";
import { isX402Body } from "./wire";

/**
 * x402 v1/v2 (scheme exact: EIP-3009, or Permit2 through x402's proxy): its bodies arrive on the EOA flow's
 * /verify and /settle, told apart by their x402Version; /supported is its own.
 */
export const x402Flow: Flow<"x402", X402Facilitator, AsyncX402SettlementStore> = {
  name: "x402",
  store: {
    sqlite: (db) => asAsync(createX402SettlementStore(db)),
    postgres: (db) => createX402SettlementStorePostgres(db),
  },
  create: (context, store) =>
    createX402Facilitator({
      ...context,
      store,
      onPayerRevert: (network, payer, reason) => context.deny.recordRevert(network.name, "payer", payer, reason),
    }),
  routes: (_x402, { networks }) => x402Routes(networks),
  readers: (x402) => [
    {
      flow: "x402",
      paths: ["/verify", "/settle"],
      matches: isX402Body,
      verify: (body) => x402.verify(body as never),
      settle: (body) => x402.settle(body as never),
    },
  ],
  reconcile: (x402, which) => x402.reconcile(which),
};
