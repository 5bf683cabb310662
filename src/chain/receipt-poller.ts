import { formatTransactionReceipt, type Hex, hexToBigInt, type PublicClient, type TransactionReceipt } from "viem";
import { type Logger, shortReason } from "../logger";

export type ReceiptListener = (receipt: TransactionReceipt) => void;

export interface ReceiptPoller {
  /**
   * Calls `listener` once when `hash` is mined; returns an unsubscribe function. `notMinedBy` is a
   * block known to predate the broadcast, which saves the first receipt query until a newer block.
   */
  watch(hash: Hex, listener: ReceiptListener, notMinedBy?: bigint): () => void;
  /** The newest block number seen, if any. */
  readonly latestBlock: bigint | undefined;
  /** The newest block number, read once (shared by concurrent callers) when none was seen yet. */
  knownBlock(): Promise<bigint>;
  readonly watchedCount: number;
  stop(): void;
}

interface Watched {
  listeners: Set<ReceiptListener>;
  /** Highest block number at which the hash was known to be unmined. */
  checkedAtBlock: bigint | undefined;
}

type RpcReceipt = Parameters<typeof formatTransactionReceipt>[0];

/** One eth_getTransactionReceipt; null while the transaction is not mined. */
export async function fetchReceipt(client: PublicClient, hash: Hex): Promise<TransactionReceipt | null> {
  const receipt = await client.request({ method: "eth_getTransactionReceipt", params: [hash] });
  return receipt ? formatTransactionReceipt(receipt as RpcReceipt) : null;
}

/**
 * One loop for every pending hash: each tick reads eth_blockNumber, and only when a block arrived
 * since a hash was last checked asks for the receipts, all in one JSON-RPC batch (the transport
 * batches requests issued in the same tick).
 */
export function createReceiptPoller({
  client,
  pollIntervalMs,
  logger,
}: {
  client: PublicClient;
  pollIntervalMs: number;
  logger: Logger;
}): ReceiptPoller {
  const watched = new Map<Hex, Watched>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let latestBlock: bigint | undefined;

  function schedule() {
    if (stopped || timer || watched.size === 0) return;
    timer = setTimeout(async () => {
      try {
        await poll();
      } catch (error) {
        logger.warn({ event: "receipt_poll_failed", reason: shortReason(error) });
      }
      timer = undefined;
      schedule();
    }, pollIntervalMs);
  }

  let blockRead: Promise<bigint> | undefined;
  async function readBlockNumber(): Promise<bigint> {
    const blockNumber = hexToBigInt(await client.request({ method: "eth_blockNumber" }));
    if (latestBlock === undefined || blockNumber > latestBlock) latestBlock = blockNumber;
    return blockNumber;
  }

  async function knownBlock(): Promise<bigint> {
    if (latestBlock !== undefined) return latestBlock;
    blockRead ??= readBlockNumber().finally(() => {
      blockRead = undefined;
    });
    return blockRead;
  }

  async function poll() {
    const blockNumber = await readBlockNumber();
    const due = [...watched].filter(
      ([, entry]) => entry.checkedAtBlock === undefined || entry.checkedAtBlock < blockNumber,
    );
    if (due.length === 0) return;
    const results = await Promise.allSettled(due.map(([hash]) => fetchReceipt(client, hash)));
    results.forEach((result, index) => {
      const [hash, entry] = due[index] as [Hex, Watched];
      if (watched.get(hash) !== entry) return;
      if (result.status === "rejected") return; // retried next tick
      if (!result.value) {
        entry.checkedAtBlock = blockNumber;
        return;
      }
      watched.delete(hash);
      for (const listener of entry.listeners) listener(result.value);
    });
  }

  function watch(hash: Hex, listener: ReceiptListener, notMinedBy?: bigint): () => void {
    const key = hash.toLowerCase() as Hex;
    let entry = watched.get(key);
    if (!entry) {
      entry = { listeners: new Set(), checkedAtBlock: notMinedBy };
      watched.set(key, entry);
    }
    entry.listeners.add(listener);
    schedule();
    const current = entry;
    return () => {
      current.listeners.delete(listener);
      if (current.listeners.size === 0 && watched.get(key) === current) watched.delete(key);
    };
  }

  return {
    watch,
    get latestBlock() {
      return latestBlock;
    },
    knownBlock,
    get watchedCount() {
      return watched.size;
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      watched.clear();
    },
  };
}
