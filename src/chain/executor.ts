import { type Address, type Hex, isAddress, keccak256, type TransactionReceipt } from "viem";
import { createLogger } from "../logger";
import { awaitMined } from "./await-mined";
import {
  BroadcastRejectedError,
  ExecutorStoppedError,
  InvalidRequestError,
  isAlreadyKnown,
  isNonceTooLow,
  KeyLeaseLostError,
  NoKeyLeaseError,
  RpcUnavailableError,
  toBroadcastError,
} from "./errors";
import type { Executor, ExecutorConfig, SendHooks } from "./executor-types";
import { createFeeOracle } from "./gas-price";
import { createKeyLeases, type KeyLeases } from "./key-leases";
import { createKeyPool, type ExecutorKey, markRefused } from "./key-pool";
import { createNonceRepair } from "./nonce-repair";
import { createReceiptPoller, fetchReceipt } from "./receipt-poller";
import { signTransaction } from "./transaction-signer";
import { createTransactionSimulator } from "./transaction-simulator";
import type { Fees, PreparedTransaction, TransactionRequest } from "./types";

export type { Executor, ExecutorConfig, ExecutorLeaseOptions, SendHooks } from "./executor-types";
export type { PreparedTransaction, TransactionRequest } from "./types";

export function createExecutor(config: ExecutorConfig): Executor {
  const { client, chainId, receiptTimeoutMs, replaceAfterMs, pollIntervalMs } = config;
  const logger = config.logger ?? createLogger({ silent: true });
  const leaseOptions = config.leases;
  // A retry may find a key at the next heartbeat, a third of the lease.
  const retryAfterSeconds = leaseOptions ? Math.max(1, Math.ceil(leaseOptions.leaseMs / 3_000)) : 0;
  let leases: KeyLeases | undefined;
  const keys = createKeyPool(
    client,
    config.privateKeys,
    leaseOptions
      ? {
          usable: (key) => leases?.holds(key.account.address) ?? false,
          noKey: () => new NoKeyLeaseError(retryAfterSeconds),
        }
      : {},
  );
  const takeoverListeners = new Set<(address: Address) => void | Promise<void>>();
  if (leaseOptions) {
    leases = createKeyLeases({
      ...leaseOptions,
      addresses: keys.addresses,
      logger,
      // The key is not held (not handed out) until this resolves: first its nonces restart from the chain's pending
      // count, then the dead holder's sent transactions are resolved by the listeners.
      async onTakeover(address) {
        const key = keys.byAddress(address as Address);
        keys.resetNonces(key);
        for (const listener of [...takeoverListeners]) await listener(key.account.address);
        keys.resetNonces(key);
      },
      // Another instance may send with it from now on: whatever this process knew of its nonces is stale then.
      // Transactions in flight on it still get their receipts awaited (never replaced: see awaitMined).
      onLost(address) {
        keys.resetNonces(keys.byAddress(address as Address));
      },
    });
  }
  const fees = createFeeOracle({ client, maxFeePerGasCap: config.maxFeePerGasCap, ttlMs: config.feeCacheMs, logger });
  const poller = createReceiptPoller({
    client,
    pollIntervalMs,
    logger,
    ...(config.newHeads ? { heads: config.newHeads } : {}),
    ...(config.newHeadsStaleAfterMs ? { headsStaleAfterMs: config.newHeadsStaleAfterMs } : {}),
  });
  const stopHandlers = new Set<() => void>();
  let stopped = false;
  const sign = (key: ExecutorKey, request: TransactionRequest, nonce: number, fee: Fees) =>
    signTransaction(chainId, key, request, nonce, fee);
  const { simulate } = createTransactionSimulator({ client, fees, poller, logger });
  const repair = createNonceRepair({
    keys,
    fees,
    logger,
    broadcast,
    sign,
    replaceAfterMs,
    retryMs: config.gapRetryMs ?? 500,
    retryMaxMs: config.gapRetryMaxMs ?? 10_000,
    resyncEveryMs: config.nonceResyncMs ?? 30_000,
  });

  async function simulateAlone(request: TransactionRequest): Promise<void> {
    if (stopped) throw new ExecutorStoppedError();
    if (!isAddress(request.to)) throw new InvalidRequestError(`invalid or wrongly checksummed address ${request.to}`);
    await simulate(keys.peek(), request, await fees.current());
  }

  async function prepare(
    request: TransactionRequest,
    options: { simulate?: boolean } = {},
  ): Promise<PreparedTransaction> {
    if (stopped) throw new ExecutorStoppedError();
    if (!isAddress(request.to)) throw new InvalidRequestError(`invalid or wrongly checksummed address ${request.to}`);
    let key = keys.reserve();
    // Every key has a gap (reserve prefers one without): try filling it now rather than at the next round.
    if (key.gaps.size > 0) repair.kick(key);
    try {
      // Fees before the nonce: a failed fee read must not burn a nonce.
      const fee = await fees.current();
      if (options.simulate) await simulate(key, request, fee);
      if (!keys.usable(key)) {
        // Its lease ended while the fees or the simulation were read: another held key, or NoKeyLeaseError (then
        // the catch below releases the first key, once).
        const other = keys.reserve();
        keys.release(key);
        key = other;
      }
      const nonce = await keys.takeNonce(key);
      try {
        return await sign(key, request, nonce, fee);
      } catch (error) {
        refused(key, nonce);
        throw error;
      }
    } catch (error) {
      keys.release(key);
      throw error;
    }
  }

  async function broadcast(raw: Hex): Promise<void> {
    await client.request({ method: "eth_sendRawTransaction", params: [raw] });
  }

  /** The nonce was never consumed: reused when it is the key's last one, else filled (see nonce-repair.ts). */
  function refused(key: ExecutorKey, nonce: number): void {
    markRefused(key, nonce);
    if (key.gaps.size > 0) repair.kick(key);
  }

  /** Sent without a verdict: the node may or may not hold it; the repair loop finds out and offers it again. */
  function unconfirmed(key: ExecutorKey, nonce: number, raw: Hex): void {
    key.unconfirmed.set(nonce, raw);
    repair.kick(key);
  }

  /**
   * Resolves with a receipt when the sync send answered with it, or when "nonce too low" turns out to be this very
   * transaction, mined; null when the receipt is still to be waited for.
   */
  async function broadcastFirst(prepared: PreparedTransaction, key: ExecutorKey): Promise<TransactionReceipt | null> {
    try {
      if (config.syncSend && (await config.syncSend.enabled())) {
        const sent = await config.syncSend.send(prepared.raw, prepared.hash);
        if (sent.kind === "mined") {
          logger.info({
            event: "tx_broadcast",
            hash: prepared.hash,
            from: prepared.from,
            nonce: prepared.nonce,
            sync: true,
          });
          return sent.receipt;
        }
        // No receipt in the answer, and no verdict either: the plain broadcast below hands the node the same
        // transaction and gets its verdict ("already known" when it holds it, "nonce too low" once it is mined).
        // "busy": not sent at all, too many sync sends wait already; the plain broadcast is its first.
        if (sent.kind === "no_receipt")
          logger.info({ event: "tx_sync_send_fallback", hash: prepared.hash, reason: sent.reason });
      }
      await broadcast(prepared.raw);
      logger.info({ event: "tx_broadcast", hash: prepared.hash, from: prepared.from, nonce: prepared.nonce });
      return null;
    } catch (error) {
      if (isAlreadyKnown(error)) return null;
      const chainError = toBroadcastError(prepared.hash, error);
      logger.warn({
        event: "tx_broadcast_failed",
        hash: prepared.hash,
        from: prepared.from,
        nonce: prepared.nonce,
        code: chainError.code,
        details: chainError.details,
      });
      if (chainError instanceof RpcUnavailableError) {
        // Every later nonce of this key would wait behind it: the key leaves rotation until it is mined.
        key.gaps.set(prepared.nonce, { raw: prepared.raw });
        unconfirmed(key, prepared.nonce, prepared.raw);
      } else if (isNonceTooLow(error)) {
        const receipt = await fetchReceipt(client, prepared.hash).catch(() => null);
        if (receipt) return receipt;
        key.outstanding.delete(prepared.nonce);
        repair.kick(key); // someone else used this key's nonces: re-sync from the chain
      } else if (chainError instanceof BroadcastRejectedError) {
        refused(key, prepared.nonce);
      }
      throw chainError;
    }
  }

  async function send(prepared: PreparedTransaction, hooks: SendHooks = {}): Promise<TransactionReceipt> {
    if (stopped) throw new ExecutorStoppedError();
    const key = keys.byAddress(prepared.from);
    try {
      if (!keys.usable(key)) {
        // Signed while the lease was held, and lost since: another instance may be sending with this nonce's key
        // now. Not broadcast; kept as unconfirmed, so the key's next holder (this one again, or the one that took
        // it over and resolves its journal record) offers it or moves past it.
        unconfirmed(key, prepared.nonce, prepared.raw);
        throw new KeyLeaseLostError(prepared.hash, prepared.from);
      }
      const knownBlock = await poller.knownBlock().catch(() => undefined);
      const broadcastAt = Date.now();
      const alreadyMined = await broadcastFirst(prepared, key);
      if (!alreadyMined && stopped) throw new ExecutorStoppedError();
      const receipt =
        alreadyMined ??
        (await awaitMined(
          {
            keys,
            fees,
            poller,
            logger,
            receiptTimeoutMs,
            replaceAfterMs,
            stopHandlers,
            sign,
            broadcast,
            unconfirmed,
          },
          prepared,
          key,
          hooks,
          knownBlock,
          broadcastAt,
        ));
      config.onReceipt?.(Date.now() - broadcastAt);
      key.minedThrough = Math.max(key.minedThrough, prepared.nonce + 1);
      return receipt;
    } finally {
      key.outstanding.delete(prepared.nonce);
      keys.release(key);
    }
  }

  function waitForReceipt(hash: Hex, timeoutMs: number): Promise<TransactionReceipt | null> {
    return new Promise((resolve) => {
      const done = (receipt: TransactionReceipt | null) => {
        clearTimeout(timer);
        unwatch();
        stopHandlers.delete(onStop);
        resolve(receipt);
      };
      const onStop = () => done(null);
      const unwatch = poller.watch(hash, done);
      const timer = setTimeout(() => done(null), timeoutMs);
      stopHandlers.add(onStop);
    });
  }

  async function rebroadcast(raw: Hex): Promise<void> {
    try {
      await broadcast(raw);
    } catch (error) {
      if (isAlreadyKnown(error) || isNonceTooLow(error)) return;
      throw toBroadcastError(keccak256(raw), error);
    }
  }

  return {
    addresses: keys.addresses,
    prepare,
    simulate: simulateAlone,
    send,
    async execute(request, hooks) {
      const prepared = await prepare(request);
      return { prepared, receipt: await send(prepared, hooks) };
    },
    waitForReceipt,
    rebroadcast,
    inFlight: () => keys.keys.map((key) => ({ address: key.account.address, count: key.inFlight })),
    discard(prepared) {
      const key = keys.byAddress(prepared.from);
      refused(key, prepared.nonce);
      keys.release(key);
    },
    heldKeys: () => keys.keys.filter(keys.usable).map((key) => key.account.address),
    requireKey: () => {
      if (stopped) throw new ExecutorStoppedError();
      keys.peek();
    },
    keyLeases: leases,
    start: async () => {
      await leases?.start();
    },
    onKeyTakenOver(listener) {
      takeoverListeners.add(listener);
      return () => {
        takeoverListeners.delete(listener);
      };
    },
    async stop({ releaseLeases = true } = {}) {
      stopped = true;
      repair.stop();
      for (const onStop of [...stopHandlers]) onStop();
      poller.stop();
      await leases?.stop({ release: releaseLeases });
    },
  };
}
