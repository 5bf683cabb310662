import { asAsync } from "../db/async-port";
import type { Flow } from "../flow";
import { createCircuitFiles } from "./circuit-files";
import { INCOGNITO_EXAMPLES } from "./examples";
import { createIncognito, type Incognito } from "./incognito";
import type { AsyncLeafStore } from "./leaf-store";
import { createLeafStore } from "./leaf-store-sqlite";
import { incognitoRoutes } from "./routes";
import { poolVerifierProblem, type VerificationKey } from "./verifier-match";

/** Incognito shield and unshield through the privacy pool: UserOps of the kernel, and the pool's leaves indexed. */
export const incognitoFlow: Flow<"incognito", Incognito, AsyncLeafStore> = {
  name: "incognito",
  store: {
    sqlite: (db) => asAsync(createLeafStore(db)),
    postgres: async () => (await import("./leaf-store-postgres")).createLeafStorePostgres,
  },
  create: (context, leaves) =>
    createIncognito({
      leaves,
      networks: context.networks,
      store: context.issued,
      deny: context.deny,
      paymasterValiditySeconds: context.config.paymasterValiditySeconds,
      logger: context.logger,
      inFlight: context.inFlightUserOps,
    }),
  routes: (incognito) => incognitoRoutes(incognito),
  openapi: {
    tags: [
      {
        name: "Incognito",
        order: 60,
        description: `A privacy pool per network: shield deposits a hidden note, unshield spends one with a zero-knowledge proof (made by the client) to a visible address, leaving a change note.
1. Make a note (\`nullifier\`, \`secret\`), \`POST /wallet/incognito/verify\` with \`{ type: "shield", token, amount, precommitment }\`, check the UserOp shields exactly that, sign \`userOpHash\`, \`POST /wallet/incognito/settle\`.
2. To spend: read the tree (\`GET /incognito/{network}/leaves\`) and the circuit (\`GET /incognito/circuit\`), prove locally with \`feeRecipient\` of \`/config\` and a fee of at least \`max(unshieldMinFee, ceil(withdrawAmount × unshieldFeeBps / 10000))\`, then verify and settle an unshield from any wallet of the factory (preferably a fresh one).`,
      },
    ],
    examples: INCOGNITO_EXAMPLES,
  },
  sending: { "/wallet/incognito/settle": "incognito" },
  capability: "incognito",
  // The pool must verify the circuit the service serves, or every unshield a client proves reverts on-chain.
  unavailableOn: async (name, network, call, codeAt) => {
    const pool = network.contracts.privacyPool;
    if (!pool) return undefined;
    const key = (await createCircuitFiles().verificationKey()) as VerificationKey;
    return poolVerifierProblem(`networks.${name}.contracts.privacyPool`, pool, key, call, codeAt);
  },
  start: (incognito) => incognito.start(),
  stop: (incognito) => incognito.stop(),
};
