import { asAsync } from "../db/async-port";
import type { Flow } from "../flow";
import { withErc20ApprovalSponsoring } from "./erc20-approval";
import { X402_ALTERNATIVES, X402_EXAMPLES } from "./examples";
import { createX402Facilitator, type X402Facilitator } from "./facilitator";
import { isIdentifierConflict } from "./payment-identifier";
import { x402Routes } from "./routes";
import { createX402SettlementStore } from "./settlement-store";
import type { AsyncX402SettlementStore } from "./settlement-store-postgres";
import { isX402Body } from "./wire";

/**
 * x402 v1/v2 (scheme exact: EIP-3009, or Permit2 through x402's proxy): its bodies arrive on the EOA flow's
 * /verify and /settle, told apart by their x402Version; /supported is its own.
 */
export const x402Flow: Flow<"x402", X402Facilitator, AsyncX402SettlementStore> = {
  name: "x402",
  store: {
    sqlite: (db) => asAsync(createX402SettlementStore(db)),
    postgres: async () => (await import("./settlement-store-postgres")).createX402SettlementStorePostgres,
  },
  create: (context, store) =>
    withErc20ApprovalSponsoring(
      createX402Facilitator({
        ...context,
        store,
        onPayerRevert: (network, payer, reason) => context.deny.recordRevert(network.name, "payer", payer, reason),
      }),
      context,
    ),
  routes: (_x402, { networks }) => x402Routes(networks),
  openapi: {
    tags: [
      {
        name: "x402",
        order: 50,
        description: `relay402 is also an x402 facilitator: \`POST /verify\` and \`POST /settle\` take x402 v1 and v2 bodies next to the interface's own, told apart by the top-level \`x402Version\`, and answer in x402's shapes (200; 413 and 429 keep the error envelope; a payment identifier bound to another body is 409 with an x402 body). Point x402's \`HTTPFacilitatorClient\` at this service.
\`GET /supported\` lists exactly the kinds served (scheme \`exact\` on the networks with x402 enabled) and the executors that send the transactions. A merchant calling for all its buyers from one address sends its key as \`x-api-key\` (configured \`merchantApiKeys\`), which lifts the per-IP rate limit.`,
      },
    ],
    examples: X402_EXAMPLES,
    alternatives: X402_ALTERNATIVES,
  },
  readers: (x402) => [
    {
      flow: "x402",
      paths: ["/verify", "/settle"],
      matches: isX402Body,
      verify: (body) => x402.verify(body as never),
      settle: (body) => x402.settle(body as never),
      statusOf: (answer) => (isIdentifierConflict(answer) ? 409 : 200),
    },
  ],
  reconcile: (x402, which) => x402.reconcile(which),
  resume: (x402, which) => x402.reconcile(which),
  capability: "x402",
};
