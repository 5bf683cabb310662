import { asAsync } from "../db/async-port";
import type { Flow } from "../flow";
import { createIncognito, type Incognito } from "./incognito";
import { type AsyncLeafStore, createLeafStore } from "./leaf-store";
import { createLeafStorePostgres } from "./leaf-store-postgres";
import { incognitoRoutes } from "./routes";

/** Incognito shield and unshield through the privacy pool: UserOps of the kernel, and the pool's leaves indexed. */
export const incognitoFlow: Flow<"incognito", Incognito, AsyncLeafStore> = {
  name: "incognito",
  store: { sqlite: (db) => asAsync(createLeafStore(db)), postgres: (db) => createLeafStorePostgres(db) },
  create: (context, leaves) =>
    createIncognito({
      leaves,
      networks: context.networks,
      store: context.issued,
      deny: context.deny,
      paymasterValiditySeconds: context.config.paymasterValiditySeconds,
      logger: context.logger,
    }),
  routes: (incognito) => incognitoRoutes(incognito),
  sending: { "/wallet/incognito/settle": "incognito" },
  start: (incognito) => incognito.start(),
  stop: (incognito) => incognito.stop(),
};
