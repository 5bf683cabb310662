import { asAsync } from "../db/async-port";
import type { Flow } from "../flow";
import type { AsyncDeploymentStore } from "./deployment-store";
import { createDeploymentStore } from "./deployment-store-sqlite";
import { createDeployments, type Deployments } from "./deployments";
import { DEPLOYMENT_EXAMPLES } from "./examples";
import { deployRoutes } from "./routes";

/** CREATE2 wallet deployment with fees and claims, behind the admin key (it spends the service's gas on request). */
export const deploymentsFlow: Flow<"deployments", Deployments, AsyncDeploymentStore> = {
  name: "deployments",
  store: {
    sqlite: (db) => asAsync(createDeploymentStore(db)),
    postgres: async () => (await import("./deployment-store-postgres")).createDeploymentStorePostgres,
  },
  create: (context, store) => createDeployments({ ...context, store }, context.several ?? {}),
  routes: (deployments, { adminGuard }) => deployRoutes(deployments, adminGuard),
  openapi: {
    tags: [
      {
        name: "Wallet deployment",
        order: 30,
        description: `Counterfactual wallets, deployed and optionally funded for a fee (\`deploymentFeePerWallet\`).
1. \`POST /deploy/quote\`: wallet addresses, fee, fee recipient and relayer for an owner's salts.
2. EOA payer: sign the fee (and each funding) as \`TransferWithAuthorization\`s, \`POST /deploy/verify\`, then \`POST /deploy/settle\`. Smart-wallet payer: \`POST /deploy/wallet/verify\`, sign \`userOpHash\`, \`POST /deploy/wallet/settle\`. These four need the admin key (\`x-admin-api-key\`).
3. \`GET /wallet/{owner}\` shows the state; \`POST /wallet/claim\` retries what is pending.`,
      },
    ],
    examples: DEPLOYMENT_EXAMPLES,
  },
  sending: { "/deploy/settle": "deploy", "/deploy/wallet/settle": "deploy_wallet" },
  capability: "deployments",
  // One instance reconciles its deployments when they are created; several also sweep others' orphans here.
  reconcile: (deployments) => deployments.reconcile(),
};
