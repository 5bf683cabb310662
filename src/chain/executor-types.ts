import type { Address, Hex, PublicClient, TransactionReceipt } from "viem";
import type { Logger } from "../logger";
import type { KeyLeases, KeyLeasesOptions } from "./key-leases";
import type { NewHeads } from "./new-heads";
import type { SyncSender } from "./sync-send";
import type { PreparedTransaction, TransactionRequest } from "./types";

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
