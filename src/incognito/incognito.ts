import { createKeyedLock } from "../concurrency/keyed-lock";
import { ApiError } from "../errors";
import { type Logger, shortReason } from "../logger";
import { type UserOpFlowDeps, userOpKernel } from "../userops/flow-deps";
import type { UserOpSettleRequest } from "../userops/settle-user-op";
import { type CircuitFiles, createCircuitFiles } from "./circuit-files";
import { incognitoNetworkOf } from "./incognito-network";
import { createLeafIndexer, type LeafIndexer } from "./leaf-indexer";
import type { AsyncLeafStore } from "./leaf-store";
import { createIncognitoSettler } from "./settle-incognito";
import type { IncognitoRequest } from "./verify-incognito";
import { verifyShield } from "./verify-shield";
import { verifyUnshield } from "./verify-unshield";

/** Leaves per page of GET /incognito/:network/leaves. */
export const MAX_LEAVES_PAGE = 1_000;
/** How often the leaf indexers read new pool events in the background (GET leaves also syncs first). */
const SYNC_INTERVAL_MS = 5_000;

/** Incognito: the service object behind /wallet/incognito/*, the leaves and the circuit. */
export function createIncognito(
  deps: UserOpFlowDeps & {
    /** The pool's leaves: SQLite's store through asAsync, or PostgreSQL's (createLeafStorePostgres). */
    leaves: AsyncLeafStore;
    logger: Logger;
    circuit?: CircuitFiles;
  },
) {
  const circuit = deps.circuit ?? createCircuitFiles();
  const { leaves } = deps;
  const kernel = userOpKernel(deps);
  const withLock = createKeyedLock();
  const indexers = new Map<string, LeafIndexer>();
  for (const runtime of deps.networks.all()) {
    const pool = runtime.config.contracts.privacyPool;
    if (!pool) continue;
    indexers.set(
      runtime.name,
      createLeafIndexer({
        network: runtime.name,
        port: incognitoNetworkOf(runtime).pool,
        store: leaves,
        startBlock: BigInt(runtime.config.privacyPoolStartBlock ?? 0),
        logger: deps.logger,
      }),
    );
  }
  const settle = createIncognitoSettler({
    ...kernel.settle,
    // The newest leaves first (one sync at a time per network); if the chain cannot be read, what was stored.
    async leafInPool(network, pool, commitment) {
      await indexers
        .get(network)
        ?.sync()
        .catch((error: unknown) =>
          deps.logger.warn({ event: "incognito_leaf_sync_failed", network, reason: shortReason(error) }),
        );
      return leaves.contains(network, pool, commitment);
    },
  });

  /** The enabled network, or the refusal naming `field` (the route's own name for it). */
  const networkOf = (name: string, field: string) => {
    try {
      return deps.networks.get(name, { capability: "incognito" });
    } catch (error) {
      if (error instanceof ApiError) throw new ApiError(error.code, error.message, { ...error.details, field });
      throw error;
    }
  };

  return {
    circuit,
    verify(networkName: string, request: IncognitoRequest) {
      const network = incognitoNetworkOf(deps.networks.get(networkName, { capability: "incognito" }));
      const common = { ...kernel.issue, network, withLock, now: kernel.now };
      return request.incognitoData.type === "shield"
        ? verifyShield(common, request)
        : verifyUnshield({ ...common, verificationKey: circuit.verificationKey }, request);
    },
    settle: (request: UserOpSettleRequest) => settle(request),
    /** A page of the pool's leaves, after reading the chain's newest (from the database alone if the chain fails). */
    async leaves(networkName: string, from: number) {
      const runtime = networkOf(networkName, "network");
      const { pool } = incognitoNetworkOf(runtime, "network");
      const indexer = indexers.get(runtime.name);
      try {
        await indexer?.sync();
      } catch (error) {
        deps.logger.warn({
          event: "incognito_leaf_sync_failed",
          network: runtime.name,
          reason: shortReason(error),
        });
      }
      // The root and the page from one snapshot: never a page of a tree another instance is rewinding.
      const view = await leaves.view(runtime.name, pool.address, from, MAX_LEAVES_PAGE);
      const total = view.last ? view.last.leafIndex + 1 : 0;
      return {
        network: runtime.name,
        pool: pool.address,
        root: view.last?.root ?? `0x${"0".repeat(64)}`,
        total,
        from,
        leaves: view.leaves.map((leaf) => leaf.commitment),
      };
    },
    start() {
      for (const indexer of indexers.values()) indexer.start(SYNC_INTERVAL_MS);
    },
    stop() {
      for (const indexer of indexers.values()) indexer.stop();
    },
  };
}

export type Incognito = ReturnType<typeof createIncognito>;
