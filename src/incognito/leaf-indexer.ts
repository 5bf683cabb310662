import { createSingleFlight } from "../concurrency/single-flight";
import { type Logger, shortReason } from "../logger";
import type { Leaf, LeafStore } from "./leaf-store";
import type { PoolPort } from "./pool-port";

/** Blocks per `eth_getLogs`: public RPCs cap the range (often at a few thousand blocks). */
export const LOG_RANGE_BLOCKS = 2_000n;

export type LeafIndexer = {
  /** Reads the pool's new `LeafInserted` events up to the latest block into the store; concurrent calls share one. */
  sync(): Promise<void>;
  /** Syncs every `intervalMs` in the background until `stop`. */
  start(intervalMs: number): void;
  stop(): void;
};

/**
 * Copies a pool's tree into the database so that GET /incognito/:network/leaves answers from it. Restart-safe:
 * each range of blocks is stored with the cursor that follows it in one transaction, and a restart resumes there.
 * The leaves must arrive without gaps (index = count): anything else stops the sync loudly rather than serve a
 * tree whose root a proof could not match.
 */
export function createLeafIndexer(deps: {
  network: string;
  port: PoolPort;
  store: LeafStore;
  /** Where to start on a database that never saw this pool (its deployment block; 0 reads the whole chain). */
  startBlock: bigint;
  logger: Logger;
}): LeafIndexer {
  const { network, port, store } = deps;
  const pool = port.address;
  const once = createSingleFlight();
  let timer: ReturnType<typeof setInterval> | undefined;

  async function run(): Promise<void> {
    const latest = await port.latestBlock();
    let from = BigInt(store.nextBlock(network, pool) ?? deps.startBlock);
    while (from <= latest) {
      const to = from + LOG_RANGE_BLOCKS - 1n < latest ? from + LOG_RANGE_BLOCKS - 1n : latest;
      const fresh = contiguous(await port.leavesIn(from, to), store.total(network, pool));
      store.append(network, pool, fresh, Number(to + 1n));
      from = to + 1n;
    }
  }

  function contiguous(leaves: readonly Leaf[], total: number): Leaf[] {
    const fresh = leaves.filter((leaf) => leaf.leafIndex >= total);
    fresh.forEach((leaf, i) => {
      if (leaf.leafIndex !== total + i) {
        throw new Error(`pool ${pool} on ${network}: leaf ${leaf.leafIndex} arrived where ${total + i} was expected`);
      }
    });
    return fresh;
  }

  const sync = () => once("sync", run);
  return {
    sync,
    start(intervalMs) {
      timer ??= setInterval(() => {
        sync().catch((error) =>
          deps.logger.warn({ event: "incognito_leaf_sync_failed", network, reason: shortReason(error) }),
        );
      }, intervalMs);
      timer.unref?.();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
