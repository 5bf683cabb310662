import { formatTransactionReceipt, type Hex, hexToBigInt, type PublicClient, type TransactionReceipt } from "viem";
import { type Logger, shortReason } from "../logger";
import type { NewHeads } from "./new-heads";

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
 *
 * With `heads` (a WebSocket newHeads subscription, new-heads.ts) the node says when a block arrives: the receipts
 * are asked for then, in the same one batch, and eth_blockNumber is not read at all. The poller falls back to
 * reading it every `pollIntervalMs` while the subscription is down, and when no head came for `headsStaleAfterMs`
 * (a socket that is open but silent must not stall receipts either).
 */
export function createReceiptPoller({
  client,
  pollIntervalMs,
  logger,
  heads,
  headsStaleAfterMs = 3_000,
}: {
  client: PublicClient;
  pollIntervalMs: number;
  logger: Logger;
  heads?: NewHeads;
  headsStaleAfterMs?: number;
}): ReceiptPoller {
  const watched = new Map<Hex, Watched>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let latestBlock: bigint | undefined;
  /** When the subscription last proved itself: it came up, or a head arrived. */
  let pushedAt = 0;
  /** The last head pushed by the current socket. */
  let lastPushedBlock: bigint | undefined;

  const pushing = () => heads?.live === true && Date.now() - pushedAt < headsStaleAfterMs;

  function schedule() {
    if (stopped || timer || watched.size === 0) return;
    // While heads are pushed, the timer only checks that they still come.
    const delay = pushing() ? Math.max(pollIntervalMs, headsStaleAfterMs - (Date.now() - pushedAt)) : pollIntervalMs;
    timer = setTimeout(async () => {
      try {
        if (!pushing()) await poll();
      } catch (error) {
        logger.warn({ event: "receipt_poll_failed", reason: shortReason(error) });
      }
      timer = undefined;
      schedule();
    }, delay);
  }

  function reschedule() {
    if (timer) clearTimeout(timer);
    timer = undefined;
    schedule();
  }

  let blockRead: Promise<bigint> | undefined;
  function seen(blockNumber: bigint) {
    if (latestBlock === undefined || blockNumber > latestBlock) latestBlock = blockNumber;
  }
  async function readBlockNumber(): Promise<bigint> {
    const blockNumber = hexToBigInt(await client.request({ method: "eth_blockNumber" }));
    seen(blockNumber);
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
    // Polling although the subscription says it is up: it was silent for headsStaleAfterMs. Two blocks past the last
    // head it pushed (or past the first poll, when it pushed none), it is broken: open a new socket. (One block could
    // be a head still on its way.)
    if (heads?.live) {
      if (lastPushedBlock === undefined) lastPushedBlock = blockNumber;
      else if (blockNumber > lastPushedBlock + 1n) {
        heads.restart("blocks arrive but the socket pushes none");
        lastPushedBlock = undefined;
      }
    }
    await check();
  }

  /** Asks for the receipts of every hash not yet checked at the latest block, in one batch. */
  async function checkAtLatest() {
    const blockNumber = latestBlock;
    if (blockNumber === undefined) return;
    const due = [...watched].filter(
      ([, entry]) => entry.checkedAtBlock === undefined || entry.checkedAtBlock < blockNumber,
    );
    if (due.length === 0) return;
    const results = await Promise.allSettled(due.map(([hash]) => fetchReceipt(client, hash)));
    results.forEach((result, index) => {
      const [hash, entry] = due[index] as [Hex, Watched];
      if (watched.get(hash) !== entry) return;
      if (result.status === "rejected") return; // retried at the next block or tick
      if (!result.value) {
        entry.checkedAtBlock = blockNumber;
        return;
      }
      watched.delete(hash);
      for (const listener of entry.listeners) listener(result.value);
    });
  }

  // One check at a time: a head or a poll arriving during a check runs one more after it.
  let checking: Promise<void> | undefined;
  let checkAgain = false;
  function check(): Promise<void> {
    if (checking) {
      checkAgain = true;
      return checking;
    }
    checking = (async () => {
      do {
        checkAgain = false;
        await checkAtLatest();
      } while (checkAgain && !stopped);
    })().finally(() => {
      checking = undefined;
    });
    return checking;
  }
  const checkNow = () =>
    void check().catch((error) => logger.warn({ event: "receipt_poll_failed", reason: shortReason(error) }));

  // Watches registered in the same tick share the batch of one check.
  let checkQueued = false;
  function queueCheck() {
    if (checkQueued) return;
    checkQueued = true;
    queueMicrotask(() => {
      checkQueued = false;
      checkNow();
    });
  }

  const unsubscribe: (() => void)[] = [];
  if (heads) {
    if (heads.live) pushedAt = Date.now();
    unsubscribe.push(
      heads.onHead((blockNumber) => {
        pushedAt = Date.now();
        lastPushedBlock = blockNumber;
        seen(blockNumber);
        if (watched.size > 0) checkNow();
      }),
      heads.onLive((live) => {
        if (live) pushedAt = Date.now();
        lastPushedBlock = undefined;
        reschedule();
      }),
    );
  }

  function watch(hash: Hex, listener: ReceiptListener, notMinedBy?: bigint): () => void {
    const key = hash.toLowerCase() as Hex;
    let entry = watched.get(key);
    if (!entry) {
      entry = { listeners: new Set(), checkedAtBlock: notMinedBy };
      watched.set(key, entry);
      // A head that came between the broadcast and now has no later push: check it at once.
      if (pushing() && latestBlock !== undefined && (notMinedBy === undefined || notMinedBy < latestBlock))
        queueCheck();
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
      for (const off of unsubscribe) off();
      watched.clear();
    },
  };
}
