import { createSingleFlight } from "../concurrency/single-flight";
import { type Logger, shortReason } from "../logger";
import type { AsyncLeafStore, Leaf } from "./leaf-store";
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
 * Several instances on one database may index the same pool at once: a range is stored only if the cursor is
 * still where this indexer read it (leaf-store.ts), else it goes on from where the store is now.
 * After reading, the stored tree must be the pool's at that block (size and root): otherwise a reorg replaced
 * blocks already read, and the last REORG_WINDOW_BLOCKS are read again. Leaves must arrive without gaps
 * (index = count): anything else stops the sync loudly rather than serve a tree no proof could match.
 */
export function createLeafIndexer(deps: {
  network: string;
  port: PoolPort;
  store: AsyncLeafStore;
  /** Blocks per `eth_getLogs` (LOG_RANGE_BLOCKS; tests use fewer, to index in many ranges). */
  rangeBlocks?: bigint;
  /** Where to start on a database that never saw this pool (its deployment block; 0 reads the whole chain). */
  startBlock: bigint;
  logger: Logger;
}): LeafIndexer {
  const { network, port, store } = deps;
  const pool = port.address;
  const range = deps.rangeBlocks ?? LOG_RANGE_BLOCKS;
  const cursor = async () => BigInt((await store.nextBlock(network, pool)) ?? deps.startBlock);
  const once = createSingleFlight();
  let timer: ReturnType<typeof setInterval> | undefined;

  /** Reads up to `latest`; true when it read anything (so the result is worth checking against the pool). */
  async function readUpTo(latest: bigint): Promise<boolean> {
    let from = await cursor();
    const read = from <= latest;
    let refused = 0;
    while (from <= latest) {
      const to = from + range - 1n < latest ? from + range - 1n : latest;
      const leaves = await port.leavesIn(from, to);
      const total = await store.total(network, pool);
      const fresh = contiguous(leaves, total);
      if (fresh && (await store.append(network, pool, fresh, Number(from), Number(to + 1n)))) {
        from = to + 1n;
        refused = 0;
        continue;
      }
      // Another instance stored this range first or rewound meanwhile (the cursor moved): go on from the store's.
      const now = await cursor();
      if (now === from && ++refused >= 3) {
        throw new Error(
          `pool ${pool} on ${network}: leaf ${leaves.find((leaf) => leaf.leafIndex >= total)?.leafIndex} arrived where ${total} was expected`,
        );
      }
      from = now;
    }
    return read;
  }

  async function matchesPool(latest: bigint): Promise<boolean> {
    const tree = await port.treeAt(latest);
    const last = await store.last(network, pool); // one read: the size and the root of the same tree
    const total = last ? last.leafIndex + 1 : 0;
    const root = last?.root ?? `0x${"0".repeat(64)}`;
    return tree.size === total && BigInt(tree.root) === BigInt(root);
  }

  async function run(): Promise<void> {
    const latest = await port.latestBlock();
    if (!(await readUpTo(latest)) || (await matchesPool(latest))) return;
    const from = latest > REORG_WINDOW_BLOCKS ? latest - REORG_WINDOW_BLOCKS : 0n;
    deps.logger.warn({ event: "incognito_leaves_rewound", network, fromBlock: Number(from) });
    await store.rewind(network, pool, Number(from > deps.startBlock ? from : deps.startBlock));
    await readUpTo(latest);
    if (!(await matchesPool(latest))) {
      throw new Error(`pool ${pool} on ${network}: the indexed tree differs from the pool's after a rewind`);
    }
  }

  /**
   * The leaves from index `total` on, or null when they do not follow on without a gap. Stored leaves move under
   * another instance's appends and rewinds, so a gap is only an error once the cursor stood still (readUpTo).
   */
  function contiguous(leaves: readonly Leaf[], total: number): Leaf[] | null {
    const fresh = leaves.filter((leaf) => leaf.leafIndex >= total);
    return fresh.every((leaf, i) => leaf.leafIndex === total + i) ? fresh : null;
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
