import { asAsync } from "../db/async-port";
import type { Flow } from "../flow";
import { type AsyncDeploymentStore, createDeploymentStore } from "./deployment-store";
import { createDeploymentStorePostgres } from "./deployment-store-postgres";
import { createDeployments, type Deployments } from "./deployments";
import { deployRoutes } from "./routes";

/** CREATE2 wallet deployment with fees and claims, behind the admin key (it spends the service's gas on request). */
export const deploymentsFlow: Flow<"deployments", Deployments, AsyncDeploymentStore> = {
  name: "deployments",
  store: {
    sqlite: (db) => asAsync(createDeploymentStore(db)),
    postgres: (db) => createDeploymentStorePostgres(db),
  },
  create: (context, store) => createDeployments({ ...context, store }, context.several ?? {}),
  routes: (deployments, { adminGuard }) => deployRoutes(deployments, adminGuard),
  sending: { "/deploy/settle": "deploy", "/deploy/wallet/settle": "deploy_wallet" },
  // One instance reconciles its deployments when they are created; several also sweep others' orphans here.
  reconcile: (deployments) => deployments.reconcile(),
};
