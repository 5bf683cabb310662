import type { Hex } from "viem";
import { type Logger, shortReason } from "../logger";
import {
  isAlreadyKnown,
  isNonceTooLow,
  isReplacementUnderpriced,
  RpcUnavailableError,
  toBroadcastError,
} from "./errors";
import type { FeeOracle } from "./gas-price";
import { type ExecutorKey, type KeyPool, type NonceGap, resyncNonces, trimRefusedTop } from "./key-pool";
import type { Fees, PreparedTransaction, TransactionRequest } from "./types";

export interface NonceRepairConfig {
  keys: KeyPool;
  fees: FeeOracle;
  logger: Logger;
  broadcast(raw: Hex): Promise<void>;
  sign(key: ExecutorKey, request: TransactionRequest, nonce: number, fee: Fees): Promise<PreparedTransaction>;
  /** A filler the node took but did not mine in this time is re-signed with a higher fee. */
  replaceAfterMs: number;
  /** First pause between repair rounds of a key; doubles up to `retryMaxMs`. */
  retryMs: number;
  retryMaxMs: number;
  /** How often keys with transactions under way are compared with the chain. */
  resyncEveryMs: number;
}

export interface NonceRepair {
  /** Compares the key with the chain now and keeps filling its gaps, with backoff, until they are mined. */
  kick(key: ExecutorKey): void;
  stop(): void;
}

interface Loop {
  running: boolean;
  kicked: boolean;
  attempt: number;
  wake?: () => void;
}

/**
 * Repairs nonce gaps: a nonce below the key's next one that the chain will not get by itself (the node refused
 * it, or lost it) holds back every later transaction of that key. One loop per key offers the original again
 * when there is one, else a zero-value self-transfer, and retries with backoff until the nonce is mined.
 */
export function createNonceRepair(config: NonceRepairConfig): NonceRepair {
  const { keys, fees, logger } = config;
  const loops = new Map<ExecutorKey, Loop>();
  let stopped = false;

  const loopOf = (key: ExecutorKey) => {
    let loop = loops.get(key);
    if (!loop) {
      loop = { running: false, kicked: false, attempt: 0 };
      loops.set(key, loop);
    }
    return loop;
  };

  function sleep(loop: Loop, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        loop.wake = undefined;
        resolve();
      }
      loop.wake = done;
    });
  }

  async function run(key: ExecutorKey, loop: Loop): Promise<void> {
    loop.running = true;
    try {
      // A key whose lease this instance lost is another instance's to send with: no original, no filler from here.
      while (!stopped && keys.usable(key)) {
        loop.kicked = false;
        const repaired = await repairOnce(key).catch((error: unknown) => {
          logger.warn({ event: "nonce_repair_failed", from: key.account.address, reason: shortReason(error) });
          return false;
        });
        if (stopped || !keys.usable(key) || (repaired && !loop.kicked)) return;
        // A kick during the round asks for another one soon; one round per `retryMs` at most.
        const backoff = Math.min(config.retryMs * 2 ** loop.attempt++, config.retryMaxMs);
        await sleep(loop, loop.kicked ? config.retryMs : backoff);
      }
    } finally {
      loop.running = false;
    }
  }

  function start(key: ExecutorKey, urgent: boolean): void {
    if (stopped) return;
    const loop = loopOf(key);
    if (urgent) loop.attempt = 0;
    if (!loop.running) {
      void run(key, loop);
      return;
    }
    if (urgent) {
      loop.kicked = true;
      loop.wake?.();
    }
  }

  /** True when the key has no gap left. */
  async function repairOnce(key: ExecutorKey): Promise<boolean> {
    const [mined, pending] = await Promise.all([keys.minedNonce(key), keys.pendingNonce(key)]);
    resyncNonces(key, mined, pending);
    const gaps = [...key.gaps].sort(([a], [b]) => a - b);
    for (const [nonce, gap] of gaps) {
      if (stopped) return false;
      if (key.gaps.get(nonce) === gap) await fill(key, nonce, gap, pending);
    }
    return key.gaps.size === 0;
  }

  async function fill(key: ExecutorKey, nonce: number, gap: NonceGap, pending: number): Promise<void> {
    const from = key.account.address;
    if (!keys.usable(key)) return;
    if (gap.raw) {
      if (nonce < pending) return; // the node holds it: wait for it to be mined
      const offered = await offerOriginal(gap.raw);
      if (offered !== "refused") {
        logger.info({ event: "nonce_gap_original_offered", from, nonce, outcome: offered });
        return;
      }
      logger.warn({ event: "nonce_gap_original_refused", from, nonce });
      gap.raw = undefined;
      key.unconfirmed.delete(nonce);
    }
    const fillerIsFresh = gap.filler && Date.now() - (gap.fillerSentAt ?? 0) < config.replaceAfterMs;
    // Below `pending` the node already holds a transaction at this nonce: only a stale filler of ours is bumped.
    if (fillerIsFresh || (nonce < pending && !gap.filler)) return;
    const fee = gap.filler ? await fees.replacementFor(gap.filler) : await fees.current();
    if (!fee) return; // the fee cap leaves no room for a bump; the filler in the pool may still be mined
    if (stopped || !keys.usable(key)) return;
    gap.busy = true;
    try {
      const filler = await config.sign(key, { to: from, data: "0x", gas: 21_000n }, nonce, fee);
      try {
        await config.broadcast(filler.raw);
      } catch (error) {
        if (!isAlreadyKnown(error)) throw error;
      }
      gap.filler = filler;
      gap.fillerSentAt = Date.now();
      logger.warn({ event: "nonce_gap_filled", from, nonce, hash: filler.hash });
    } catch (error) {
      if (isNonceTooLow(error) || isReplacementUnderpriced(error)) return;
      const reason = toBroadcastError("0x", error).details ?? shortReason(error);
      logger.warn({ event: "nonce_gap_filler_refused", from, nonce, reason });
    } finally {
      gap.busy = false;
      trimRefusedTop(key);
    }
  }

  async function offerOriginal(raw: Hex): Promise<"taken" | "unreachable" | "refused"> {
    try {
      await config.broadcast(raw);
      return "taken";
    } catch (error) {
      if (isAlreadyKnown(error) || isNonceTooLow(error) || isReplacementUnderpriced(error)) return "taken";
      return toBroadcastError("0x", error) instanceof RpcUnavailableError ? "unreachable" : "refused";
    }
  }

  const periodic = setInterval(() => {
    for (const key of keys.keys) {
      const busy = key.outstanding.size > 0 || key.unconfirmed.size > 0 || key.gaps.size > 0;
      if (busy && key.nextNonce !== undefined && keys.usable(key)) start(key, false);
    }
  }, config.resyncEveryMs);
  periodic.unref?.();

  return {
    kick: (key) => start(key, true),
    stop() {
      stopped = true;
      clearInterval(periodic);
      for (const loop of loops.values()) loop.wake?.();
    },
  };
}
