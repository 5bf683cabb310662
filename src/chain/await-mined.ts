import type { Hex, TransactionReceipt } from "viem";
import { type Logger, shortReason } from "../logger";
import { ExecutorStoppedError, isAlreadyKnown, ReceiptTimeoutError, toBroadcastError } from "./errors";
import type { SendHooks } from "./executor-types";
import type { createFeeOracle } from "./gas-price";
import type { createKeyPool, ExecutorKey } from "./key-pool";
import type { createReceiptPoller } from "./receipt-poller";
import type { Fees, PreparedTransaction, TransactionRequest } from "./types";

/** What the wait for a receipt uses of its executor. */
export type AwaitMinedDeps = {
  keys: Pick<ReturnType<typeof createKeyPool>, "usable">;
  fees: Pick<ReturnType<typeof createFeeOracle>, "replacementFor">;
  poller: Pick<ReturnType<typeof createReceiptPoller>, "watch" | "latestBlock">;
  logger: Logger;
  receiptTimeoutMs: number;
  replaceAfterMs: number;
  /** The executor's stop: every wait registers here and rejects with ExecutorStoppedError when it runs. */
  stopHandlers: Set<() => void>;
  sign(key: ExecutorKey, request: TransactionRequest, nonce: number, fee: Fees): Promise<PreparedTransaction>;
  broadcast(raw: Hex): Promise<void>;
  /** Sent without a verdict: the nonce repair finds out whether the node holds it. */
  unconfirmed(key: ExecutorKey, nonce: number, raw: Hex): void;
};

/**
 * Waits for a broadcast transaction's receipt, from any of its versions: every `replaceAfterMs` without one it is
 * signed again with a bumped fee (same nonce) and broadcast, the old hashes still watched; after
 * `receiptTimeoutMs` it rejects with ReceiptTimeoutError naming the latest hash, and the nonce goes to the repair.
 */
export function awaitMined(
  deps: AwaitMinedDeps,
  prepared: PreparedTransaction,
  key: ExecutorKey,
  hooks: SendHooks,
  blockBeforeBroadcast: bigint | undefined,
  broadcastAt: number,
): Promise<TransactionReceipt> {
  const { keys, fees, poller, logger, receiptTimeoutMs, replaceAfterMs, stopHandlers, sign, broadcast, unconfirmed } =
    deps;
  // Counted from the first broadcast: a sync send that waited in vain does not delay the fee bump or the timeout.
  const waited = Date.now() - broadcastAt;
  return new Promise((resolve, reject) => {
    let latest = prepared;
    const unwatchers: (() => void)[] = [];
    let replaceTimer: ReturnType<typeof setTimeout> | undefined;
    let settled = false;

    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      for (const unwatch of unwatchers) unwatch();
      clearTimeout(replaceTimer);
      clearTimeout(timeoutTimer);
      stopHandlers.delete(onStop);
      outcome();
    };
    const watch = (hash: Hex, notMinedBy: bigint | undefined) => {
      unwatchers.push(poller.watch(hash, (receipt) => finish(() => resolve(receipt)), notMinedBy));
    };
    const onStop = () => finish(() => reject(new ExecutorStoppedError()));
    stopHandlers.add(onStop);
    const timeoutTimer = setTimeout(
      () => {
        logger.warn({ event: "tx_receipt_timeout", hash: latest.hash, from: prepared.from, nonce: prepared.nonce });
        finish(() => reject(new ReceiptTimeoutError(latest.hash, receiptTimeoutMs)));
        unconfirmed(key, prepared.nonce, latest.raw);
      },
      Math.max(0, receiptTimeoutMs - waited),
    );

    const replace = async () => {
      // A key no longer leased is not bumped: only the receipt of what was sent is awaited.
      if (!keys.usable(key)) {
        logger.warn({ event: "tx_replacement_skipped", reason: "key lease lost", hash: latest.hash });
        return;
      }
      const next = await fees.replacementFor(latest).catch(() => null);
      if (settled) return;
      if (!next) {
        logger.warn({
          event: "tx_replacement_skipped",
          reason: "fee cap reached",
          hash: latest.hash,
          maxFeePerGas: latest.maxFeePerGas.toString(),
        });
        return;
      }
      if (!keys.usable(key)) return;
      const replacement = await sign(key, prepared.request, prepared.nonce, next);
      await hooks.onReplaced?.(replacement.hash);
      if (settled) return;
      // Watch before broadcasting so a fast mine cannot be missed; the old hashes stay watched.
      watch(replacement.hash, poller.latestBlock);
      try {
        await broadcast(replacement.raw);
      } catch (error) {
        if (!isAlreadyKnown(error)) {
          logger.warn({
            event: "tx_replacement_broadcast_failed",
            hash: replacement.hash,
            reason: toBroadcastError(replacement.hash, error).details,
          });
          return;
        }
      }
      latest = replacement;
      logger.info({
        event: "tx_replaced",
        hash: replacement.hash,
        replaces: prepared.hash,
        nonce: prepared.nonce,
        maxFeePerGas: next.maxFeePerGas.toString(),
      });
    };
    const scheduleReplacement = (delayMs: number) => {
      replaceTimer = setTimeout(async () => {
        try {
          await replace();
        } catch (error) {
          logger.warn({ event: "tx_replacement_failed", hash: latest.hash, reason: shortReason(error) });
        }
        if (!settled) scheduleReplacement(replaceAfterMs);
      }, delayMs);
    };

    watch(prepared.hash, blockBeforeBroadcast);
    scheduleReplacement(Math.max(0, replaceAfterMs - waited));
  });
}
