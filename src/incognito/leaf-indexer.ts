import { createSingleFlight } from "../concurrency/single-flight";
import { type Logger, shortReason } from "../logger";
import type { Leaf, LeafStore } from "./leaf-store";
import type { PoolPort } from "./pool-port";

/** Blocks per `eth_getLogs`: public RPCs cap the range (often at a few thousand blocks). */
export const LOG_RANGE_BLOCKS = 2_000n;
/** How far back a sync re-reads when its tree disagrees with the pool's (a reorg replaced blocks it had read). */
export const REORG_WINDOW_BLOCKS = 64n;

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
 * After reading, the stored tree must be the pool's at that block (size and root): otherwise a reorg replaced
 * blocks already read, and the last REORG_WINDOW_BLOCKS are read again. Leaves must arrive without gaps
 * (index = count): anything else stops the sync loudly rather than serve a tree no proof could match.
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

  /** Reads up to `latest`; true when it read anything (so the result is worth checking against the pool). */
  async function readUpTo(latest: bigint): Promise<boolean> {
    let from = BigInt(store.nextBlock(network, pool) ?? deps.startBlock);
    const read = from <= latest;
    while (from <= latest) {
      const to = from + LOG_RANGE_BLOCKS - 1n < latest ? from + LOG_RANGE_BLOCKS - 1n : latest;
      const fresh = contiguous(await port.leavesIn(from, to), store.total(network, pool));
      store.append(network, pool, fresh, Number(to + 1n));
      from = to + 1n;
    }
    return read;
  }

  async function matchesPool(latest: bigint): Promise<boolean> {
    const tree = await port.treeAt(latest);
    const total = store.total(network, pool);
    const root = store.last(network, pool)?.root ?? `0x${"0".repeat(64)}`;
    return tree.size === total && BigInt(tree.root) === BigInt(root);
  }

  async function run(): Promise<void> {
    const latest = await port.latestBlock();
    if (!(await readUpTo(latest)) || (await matchesPool(latest))) return;
    const from = latest > REORG_WINDOW_BLOCKS ? latest - REORG_WINDOW_BLOCKS : 0n;
    deps.logger.warn({ event: "incognito_leaves_rewound", network, fromBlock: Number(from) });
    store.rewind(network, pool, Number(from > deps.startBlock ? from : deps.startBlock));
    await readUpTo(latest);
    if (!(await matchesPool(latest))) {
      throw new Error(`pool ${pool} on ${network}: the indexed tree differs from the pool's after a rewind`);
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
