import { type Address, type Hex, isAddress, keccak256, type PublicClient, type TransactionReceipt } from "viem";
import { createTurns } from "../concurrency/turns";
import { createLogger, type Logger, shortReason } from "../logger";
import {
  BroadcastRejectedError,
  ExecutorStoppedError,
  InvalidRequestError,
  isAlreadyKnown,
  isExecutionReverted,
  isInvalidParams,
  isNonceTooLow,
  KeyLeaseLostError,
  NoKeyLeaseError,
  ReceiptTimeoutError,
  RpcUnavailableError,
  SimulationRevertedError,
  toBroadcastError,
  toReadError,
} from "./errors";
import { createFeeOracle } from "./gas-price";
import { createKeyLeases, type KeyLeases, type KeyLeasesOptions } from "./key-leases";
import { createKeyPool, type ExecutorKey, markRefused } from "./key-pool";
import type { NewHeads } from "./new-heads";
import { createNonceRepair } from "./nonce-repair";
import { createReceiptPoller, fetchReceipt } from "./receipt-poller";
import type { SyncSender } from "./sync-send";
import type { Fees, PreparedTransaction, TransactionRequest } from "./types";

export type { PreparedTransaction, TransactionRequest } from "./types";

export interface SendHooks {
  /** Called with every replacement hash, awaited before that replacement is broadcast. */
  onReplaced?(hash: Hex): void | Promise<void>;
}

/**
 * Executor key leases for several instances on one database (key-leases.ts): the store, this network's name, this
 * instance's holder id, the lease's length and how many keys to ask for. The executor supplies the addresses and
 * the takeover and loss hooks.
 */
export type ExecutorLeaseOptions = Omit<KeyLeasesOptions, "addresses" | "onTakeover" | "onLost" | "logger">;

export interface ExecutorConfig {
  client: PublicClient;
  chainId: number;
  privateKeys: Hex[];
  maxFeePerGasCap: bigint;
  receiptTimeoutMs: number;
  replaceAfterMs: number;
  /** Pause between eth_blockNumber reads while a transaction waits for its receipt (see receipt-poller.ts). */
  pollIntervalMs: number;
  /**
   * New blocks pushed over a WebSocket (new-heads.ts): receipts are asked for when a block arrives, and
   * eth_blockNumber is polled only while the subscription is down or silent for `newHeadsStaleAfterMs`.
   */
  newHeads?: NewHeads;
  newHeadsStaleAfterMs?: number;
  /**
   * Broadcasts through eth_sendRawTransactionSync (EIP-7966) when it says it is enabled, taking the receipt from
   * the answer; without it, or when the call gives no receipt, the plain broadcast and the poller as before.
   */
  syncSend?: SyncSender;
  logger?: Logger;
  /** How long network fees are reused; 1 s by default. */
  feeCacheMs?: number;
  /** Called with the time from each transaction's first broadcast to its receipt (the receipt-lag metric). */
  onReceipt?(lagMs: number): void;
  /** Nonce gap repair: first pause between rounds (500 ms), its ceiling (10 s), periodic re-sync (30 s). */
  gapRetryMs?: number;
  gapRetryMaxMs?: number;
  nonceResyncMs?: number;
  /**
   * Send only with the keys whose lease this instance holds (several instances on one database). Absent: every
   * configured key is this instance's (one instance on its SQLite file), as before leases existed.
   */
  leases?: ExecutorLeaseOptions;
}

export interface Executor {
  readonly addresses: Address[];
  /**
   * Signs the transaction with the next executor key and a locally tracked nonce, without sending it.
   * With `simulate`, first runs it as an eth_call from that key with its gas limit and fees, and throws
   * SimulationRevertedError (nothing signed, no nonce used) when it would revert.
   */
  prepare(request: TransactionRequest, options?: { simulate?: boolean }): Promise<PreparedTransaction>;
  /**
   * The simulation of `prepare`, alone: the exact transaction as an eth_call from the key `prepare` would use next,
   * with its gas limit and the current fees, reserving nothing. For a caller that reads other state first: issued
   * in the same tick, both travel in one JSON-RPC batch, and it then prepares without `simulate`. Throws
   * SimulationRevertedError when it would revert, a read error when it could not be run.
   */
  simulate(request: TransactionRequest): Promise<void>;
  /**
   * Gives up a prepared transaction that will not be broadcast (its journal write failed): its nonce is reused or
   * filled like a refused one's, and its key is released.
   */
  discard(prepared: PreparedTransaction): void;
  /**
   * Broadcasts a prepared transaction and resolves with its receipt (success or reverted). Replaces it
   * with a higher fee when no receipt came after `replaceAfterMs`; throws ReceiptTimeoutError (latest
   * hash) after `receiptTimeoutMs`, RpcUnavailableError when no endpoint answered the broadcast and
   * BroadcastRejectedError when the node refused it.
   */
  send(prepared: PreparedTransaction, hooks?: SendHooks): Promise<TransactionReceipt>;
  execute(
    request: TransactionRequest,
    hooks?: SendHooks,
  ): Promise<{ prepared: PreparedTransaction; receipt: TransactionReceipt }>;
  /** Waits for the receipt of a known hash (reconciliation after a restart); null on timeout. */
  waitForReceipt(hash: Hex, timeoutMs: number): Promise<TransactionReceipt | null>;
  /** Re-broadcasts a raw signed transaction, ignoring "already known" and "nonce too low". */
  rebroadcast(raw: Hex): Promise<void>;
  /** Per key: transactions prepared whose send has not ended (the in-flight metric). */
  inFlight(): { address: Address; count: number }[];
  /** The keys this instance may send with now: every key without leases, else the keys whose lease it holds. */
  heldKeys(): Address[];
  /**
   * Throws NoKeyLeaseError when no key may send now (on leases, none held). For a flow whose first use of a key
   * comes after it claimed its record: checked before the claim, "no lease" is a 503 instead of a claim released.
   */
  requireKey(): void;
  /** This network's key leases; undefined when every configured key is this instance's (no `leases` config). */
  readonly keyLeases: KeyLeases | undefined;
  /**
   * Takes the first key leases (one heartbeat) and keeps renewing them; resolves at once without leases. Call it
   * after `onKeyTakenOver` listeners are registered: a first take may already be a takeover. Until then an
   * executor with leases holds no key, and `prepare` and `simulate` throw NoKeyLeaseError.
   */
  start(): Promise<void>;
  /**
   * Registers a listener of takeovers: a key's lease was taken from a holder whose lease expired (an instance that
   * died). Awaited before the key is used, after its nonce bookkeeping was reset (its next nonce will be the chain's
   * pending count): the wiring resolves the dead holder's transactions left sent from this address here. A throw
   * leaves the key unused; the takeover is tried again at the next heartbeat. Returns the unsubscribe.
   */
  onKeyTakenOver(listener: (address: Address) => void | Promise<void>): () => void;
  /**
   * Stops: receipts are no longer awaited (the sends waiting reject with ExecutorStoppedError) and the key leases
   * stop heartbeating; they are released (the next taker finds the keys free) unless `releaseLeases` is false, when
   * they expire as after a crash. Resolves once the leases are released.
   */
  stop(options?: { releaseLeases?: boolean }): Promise<void>;
}

/** One signature per turn of the event loop, across every network's executor: they share the loop. */
const signingTurn = createTurns();

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

  async function sign(
    key: ExecutorKey,
    request: TransactionRequest,
    nonce: number,
    fee: Fees,
  ): Promise<PreparedTransaction> {
    await signingTurn();
    const raw = await key.account.signTransaction({
      chainId,
      type: "eip1559",
      to: request.to,
      data: request.data,
      value: request.value ?? 0n,
      gas: request.gas,
      nonce,
      ...fee,
    });
    return { hash: keccak256(raw), raw, from: key.account.address, nonce, ...fee, request };
  }

  /**
   * The exact transaction as an eth_call: same sender, gas limit and fees, so a payer contract that answers
   * differently when gas is short or tx.gasprice is zero is seen as it will be on-chain.
   */
  async function simulate(key: ExecutorKey, request: TransactionRequest, fee: Fees): Promise<void> {
    const run = (block: ReturnType<typeof simulationBlock>) =>
      client.call({
        account: key.account.address,
        to: request.to,
        data: request.data,
        value: request.value ?? 0n,
        gas: request.gas,
        ...block,
        ...fee,
      });
    try {
      const block = simulationBlock();
      try {
        await run(block);
      } catch (error) {
        if (!("blockOverrides" in block) || !isInvalidParams(error)) throw error;
        // A node that refuses eth_call's block override parameter: the pending block from now on.
        blockOverridesRefused = true;
        logger.warn({ event: "simulation_block_override_refused", reason: shortReason(error) });
        await run({ blockTag: "pending" });
      }
    } catch (error) {
      if (isExecutionReverted(error)) throw new SimulationRevertedError(shortReason(error));
      throw toReadError(error);
    }
  }

  /**
   * On the latest block, run as the next one: its time max(now, latest + 1 s), its number latest + 1 (an eth_call block
   * override). The latest block of an idle chain can be minutes old, and an authorization valid from now would look
   * not yet valid there. The "pending" block would give the time and the mempool too, but a node like anvil builds
   * it by executing its whole pool for every call, which under a burst costs more than the calls themselves.
   * Without a known head yet (no fee read so far), or on a node that refuses the override (invalid params), the
   * pending block. What the pending block saw and this does not: the mempool. A payment whose funds an earlier
   * transaction still in the pool spends passes here and reverts on-chain, which costs the executor its gas; the same
   * payments arriving in one tick passed the pending block too, so the cost was already bounded by the deny counter.
   */
  let blockOverridesRefused = false;
  function simulationBlock():
    | { blockTag: "pending" }
    | { blockTag: "latest"; blockOverrides: { time: bigint; number: bigint } } {
    const head = fees.latestHead();
    if (!head || blockOverridesRefused) return { blockTag: "pending" };
    const now = BigInt(Math.floor(Date.now() / 1000));
    // The poller may have seen a newer block than the fee read's.
    let latest = head.number;
    if (poller.latestBlock !== undefined && poller.latestBlock > latest) latest = poller.latestBlock;
    return {
      blockTag: "latest",
      blockOverrides: { time: now > head.timestamp ? now : head.timestamp + 1n, number: latest + 1n },
    };
  }

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
      const receipt = alreadyMined ?? (await awaitMined(prepared, key, hooks, knownBlock, broadcastAt));
      config.onReceipt?.(Date.now() - broadcastAt);
      key.minedThrough = Math.max(key.minedThrough, prepared.nonce + 1);
      return receipt;
    } finally {
      key.outstanding.delete(prepared.nonce);
      keys.release(key);
    }
  }

  function awaitMined(
    prepared: PreparedTransaction,
    key: ExecutorKey,
    hooks: SendHooks,
    blockBeforeBroadcast: bigint | undefined,
    broadcastAt: number,
  ): Promise<TransactionReceipt> {
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
