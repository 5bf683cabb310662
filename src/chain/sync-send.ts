import {
  BaseError,
  createPublicClient,
  formatTransactionReceipt,
  type Hex,
  http,
  type PublicClient,
  RpcRequestError,
  type TransactionReceipt,
} from "viem";
import { type Logger, shortReason } from "../logger";

/**
 * EIP-7966 `eth_sendRawTransactionSync`: the node answers a broadcast with the transaction's receipt once it is
 * in a block (Base answers at flashblock speed, anvil at once on automine), which saves the receipt polling and
 * its round trips. The executor still owns the state machine (journal before send, fee bumps, timeouts): this
 * module only sends and says what the answer means.
 */

/** "auto" probes the network's first RPC URL once; "always" and "never" skip the probe. */
export type SyncSendMode = "auto" | "always" | "never";

export type SyncSendResult =
  /** The node answered with the receipt of this very transaction. */
  | { kind: "mined"; receipt: TransactionReceipt }
  /**
   * No receipt from the call (the node's own timeout, ours, a lost connection, a refusal, or the method is not
   * served after all): the node may or may not hold the transaction, so the caller broadcasts it the plain way
   * and waits for its receipt as usual.
   */
  | { kind: "no_receipt"; reason: string }
  /**
   * Not sent: `maxInFlight` sync sends are waiting already. Each holds an HTTP connection until its block, and Bun's
   * fetch runs at most 256 at once for the whole process: a burst of them would queue every other RPC call (verifies
   * included) behind the block. The caller broadcasts the plain way; the receipt poller then asks for the receipts
   * of everything in flight in one batch per block.
   */
  | { kind: "busy" };

export interface SyncSender {
  /** Whether broadcasts go through eth_sendRawTransactionSync; in "auto", the first call runs the probe. */
  enabled(): Promise<boolean>;
  /**
   * Sends a signed transaction and waits for its receipt, for at most the client's timeout. Never throws: any
   * error becomes "no_receipt", and the caller's plain broadcast of the same transaction gets the node's verdict
   * (refused again, "already known", or "nonce too low" once mined), which the executor already classifies. A
   * sync call's error alone cannot tell a refusal from a failure after the node pooled the transaction (its
   * timeout, an internal error), and taking a pooled transaction for refused would free a nonce still in use.
   */
  send(raw: Hex, hash: Hex): Promise<SyncSendResult>;
}

type RpcReceipt = Parameters<typeof formatTransactionReceipt>[0];

/** The node's JSON-RPC error answer inside a viem error; null when no node answered (connection, timeout). */
function nodeAnswer(error: unknown): RpcRequestError | null {
  if (!(error instanceof BaseError)) return null;
  return error.walk((cause) => cause instanceof RpcRequestError) as RpcRequestError | null;
}

/** The node answered that it does not serve the method (JSON-RPC -32601, or a provider's own words for it). */
export function isMethodUnsupported(error: unknown): boolean {
  const answer = nodeAnswer(error);
  if (!answer) return false;
  return (
    answer.code === -32601 ||
    /method not found|method .*(not supported|not available|does not exist)|unsupported method/i.test(answer.details)
  );
}

/**
 * The sync send's own client: one URL, no batching (inside an HTTP batch the call would hold every other request
 * of that batch, verifies included, until the block) and no retry (a retry, or a fallback to the next URL, would
 * send the transaction again). Its HTTP timeout bounds how long a send waits before the caller falls back.
 */
export function createSyncSendClient(url: string, timeoutMs: number): PublicClient {
  return createPublicClient({ transport: http(url, { batch: false, retryCount: 0, timeout: timeoutMs }) });
}

export function createSyncSender({
  client,
  mode,
  logger,
  reprobeMs = 60_000,
  maxInFlight = 64,
}: {
  client: PublicClient;
  mode: SyncSendMode;
  logger: Logger;
  /** After a probe nobody answered, the next one waits this long (a dead first URL must not slow every send). */
  reprobeMs?: number;
  /** Sync sends waiting at once; beyond, `send` answers "busy" (see SyncSendResult). */
  maxInFlight?: number;
}): SyncSender {
  let supported: boolean | undefined = mode === "never" ? false : mode === "always" ? true : undefined;
  let probing: Promise<boolean> | undefined;
  let unansweredAt: number | undefined;
  let inFlight = 0;

  const request = (params: [Hex]) =>
    client.request({ method: "eth_sendRawTransactionSync", params } as never, { retryCount: 0 }) as Promise<unknown>;

  /**
   * Asks for the method with an empty transaction, which no node can decode or send: a node that serves the
   * method refuses the parameter, one that does not answers "method not found". No answer decides nothing: sends
   * go the plain way, and the question is asked again in the background `reprobeMs` later.
   */
  async function probe(): Promise<boolean> {
    try {
      await request(["0x"]);
      supported = true;
      return true;
    } catch (error) {
      if (!nodeAnswer(error)) {
        unansweredAt = Date.now();
        return false;
      }
      supported = !isMethodUnsupported(error);
      logger.info({ event: "sync_send_probe", supported });
      return supported;
    }
  }

  return {
    async enabled() {
      if (supported !== undefined) return supported;
      const due = unansweredAt === undefined || Date.now() - unansweredAt >= reprobeMs;
      if (!probing && due)
        probing = probe().finally(() => {
          probing = undefined;
        });
      // Only the start's probe is waited for (it is usually answered long before the first send); a later one
      // would hold a send for as long as the dead URL takes to fail.
      if (probing && unansweredAt === undefined) return probing;
      return false;
    },
    async send(raw, hash) {
      if (inFlight >= maxInFlight) return { kind: "busy" };
      let answer: unknown;
      inFlight++;
      try {
        answer = await request([raw]);
      } catch (error) {
        if (isMethodUnsupported(error) && mode === "auto") {
          // Served at the probe, not now (another node behind the URL): plain broadcasts from here on.
          supported = false;
          logger.warn({ event: "sync_send_unsupported" });
        }
        return { kind: "no_receipt", reason: shortReason(error) };
      } finally {
        inFlight--;
      }
      const receipt = answer ? formatTransactionReceipt(answer as RpcReceipt) : null;
      if (!receipt || receipt.transactionHash.toLowerCase() !== hash.toLowerCase())
        return { kind: "no_receipt", reason: "the answer is not this transaction's receipt" };
      return { kind: "mined", receipt };
    },
  };
}
