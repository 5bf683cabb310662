import { type Hex, keccak256, parseTransaction, recoverTransactionAddress, type TransactionReceipt } from "viem";
import { shortReason } from "../logger";
import {
  BroadcastRejectedError,
  ChainError,
  NoKeyLeaseError,
  ReceiptTimeoutError,
  SimulationRevertedError,
} from "./errors";
import type { NetworkRuntime } from "./networks";
import { fetchReceipt } from "./receipt-poller";
import type { TransactionRequest } from "./types";

/**
 * The one way a flow sends a transaction that must survive a crash (EOA settlements, deployment steps,
 * fundings): simulate → sign → journal (hash and raw transaction made durable) → broadcast → receipt,
 * replacement or "unconfirmed"; and, for what a crash or a timeout left sent, resume → receipt, or the
 * sender's nonce moved on without it ("superseded"), after which only the chain's state can tell what happened.
 * Each flow maps these outcomes to its own records; none of them re-implements the steps.
 */

/** What a flow keeps of a transaction it sent: the latest hash (replacements included) and the raw original. */
export type SentTransaction = { txHash: string | null; rawTx: string | null };

/** Where a flow writes its transaction before the node sees it. Both calls are awaited before the broadcast. */
export interface SendJournal {
  signed(hash: Hex, raw: Hex): void | Promise<void>;
  replaced(hash: Hex): void | Promise<void>;
}

export type SendOutcome =
  | { status: "mined"; receipt: TransactionReceipt }
  /** The simulation reverted: nothing was signed and no gas was spent. */
  | { status: "would_revert"; reason: string; revertData?: Hex }
  /** Nothing was signed (fees, nonce or the simulation could not be read). */
  | { status: "not_sent"; reason: string }
  /** The node refused the signed transaction: it can never be mined. */
  | { status: "refused"; hash: Hex; reason: string }
  /** Sent, and its outcome is not known yet: resume later from the journal. */
  | { status: "unconfirmed"; hash: Hex; reason: string }
  /**
   * The sender's nonce was used and none of the known hashes was mined: this transaction never will be.
   * (A replacement whose hash was not kept may have been: the flow decides from the chain's state.)
   */
  | { status: "superseded"; hash: Hex | null };

export type SendOptions = {
  /** Run the exact transaction as an eth_call first and do not sign it if it reverts. */
  simulate?: boolean;
};

/** Sends a new transaction durably; never throws for chain failures, the outcome says what happened. */
export async function sendDurably(
  network: NetworkRuntime,
  request: TransactionRequest,
  journal: SendJournal,
  options: SendOptions = {},
): Promise<SendOutcome> {
  let prepared: Awaited<ReturnType<NetworkRuntime["executor"]["prepare"]>>;
  try {
    prepared = await network.executor.prepare(request, { simulate: options.simulate });
  } catch (error) {
    return unsent(error);
  }
  try {
    await journal.signed(prepared.hash, prepared.raw);
  } catch (error) {
    // Not journaled, so not broadcast ("record before send"): the nonce goes back to the key. With several
    // instances this is also how a claim another instance's sweep released is never sent twice.
    network.executor.discard(prepared);
    return { status: "not_sent", reason: `the transaction was not journaled: ${shortReason(error)}` };
  }
  try {
    const receipt = await network.executor.send(prepared, { onReplaced: (hash) => journal.replaced(hash) });
    return { status: "mined", receipt };
  } catch (error) {
    if (error instanceof BroadcastRejectedError)
      return { status: "refused", hash: prepared.hash, reason: shortReason(error) };
    const hash = error instanceof ReceiptTimeoutError ? error.hash : prepared.hash;
    return { status: "unconfirmed", hash, reason: shortReason(error) };
  }
}

type Unsent = Extract<SendOutcome, { status: "would_revert" | "not_sent" }>;

function unsent(error: unknown): Unsent {
  if (error instanceof SimulationRevertedError) {
    return { status: "would_revert", reason: error.details ?? "", revertData: error.revertData };
  }
  // The node's own words ("insufficient funds for gas", ...) are what an operator needs here.
  const details = error instanceof ChainError && error.details ? ` (${shortReason(error.details)})` : "";
  return { status: "not_sent", reason: `${shortReason(error)}${details}` };
}

/**
 * The simulation of `sendDurably` alone (the executor's `simulate`), for a flow that reads other state before it
 * records and sends: started in the same tick as those reads, it shares their JSON-RPC batch. Null when the
 * transaction would go through; the flow then records it and calls `sendDurably` without `simulate`.
 * Throws NoKeyLeaseError when this instance holds no executor key of the network (several instances on one
 * database): nothing is recorded yet, so the request is refused as a whole (503 with Retry-After) and may be retried.
 */
export async function simulateSend(network: NetworkRuntime, request: TransactionRequest): Promise<Unsent | null> {
  try {
    await network.executor.simulate(request);
    return null;
  } catch (error) {
    if (error instanceof NoKeyLeaseError) throw error;
    return unsent(error);
  }
}

/**
 * Picks up a transaction left sent: re-broadcasts the raw original (the node may never have had it), then
 * answers its receipt, whichever of the known hashes was mined; "superseded" once the sender's nonce is used
 * without any of them; "unconfirmed" when neither is known within `timeoutMs`.
 */
export async function resumeSend(
  network: NetworkRuntime,
  sent: SentTransaction,
  timeoutMs: number = network.config.receiptTimeoutMs,
): Promise<SendOutcome> {
  const hashes = knownHashes(sent);
  if (sent.rawTx) await network.executor.rebroadcast(sent.rawTx as Hex).catch(() => undefined);
  if (sent.rawTx && (await nonceUsed(network, sent.rawTx as Hex))) {
    const receipt = await firstReceipt(network, hashes);
    return receipt ? { status: "mined", receipt } : { status: "superseded", hash: (sent.txHash as Hex | null) ?? null };
  }
  const receipt = await waitForAny(network, hashes, timeoutMs);
  if (receipt) return { status: "mined", receipt };
  const hash = (sent.txHash ?? hashes[0] ?? null) as Hex | null;
  if (!hash) return { status: "superseded", hash: null };
  // The nonce may have been used while we waited.
  if (sent.rawTx && (await nonceUsed(network, sent.rawTx as Hex))) {
    const late = await firstReceipt(network, hashes);
    return late ? { status: "mined", receipt: late } : { status: "superseded", hash };
  }
  return { status: "unconfirmed", hash, reason: "no receipt in time" };
}

/** The stored hash is the latest fee-bumped replacement, but the original (the raw transaction) may be the one mined. */
function knownHashes(sent: SentTransaction): Hex[] {
  const hashes = new Set<Hex>();
  if (sent.txHash) hashes.add(sent.txHash.toLowerCase() as Hex);
  if (sent.rawTx) hashes.add(keccak256(sent.rawTx as Hex));
  return [...hashes];
}

/** True when the chain's mined nonce of the transaction's sender has passed its nonce; false when unknown. */
async function nonceUsed(network: NetworkRuntime, raw: Hex): Promise<boolean> {
  try {
    const from = await recoverTransactionAddress({ serializedTransaction: raw as never });
    const { nonce } = parseTransaction(raw);
    const mined = await network.client.getTransactionCount({ address: from, blockTag: "latest" });
    return nonce !== undefined && mined > nonce;
  } catch {
    return false;
  }
}

async function firstReceipt(network: NetworkRuntime, hashes: Hex[]): Promise<TransactionReceipt | null> {
  for (const hash of hashes) {
    const receipt = await fetchReceipt(network.client, hash).catch(() => null);
    if (receipt) return receipt;
  }
  return null;
}

function waitForAny(network: NetworkRuntime, hashes: Hex[], timeoutMs: number): Promise<TransactionReceipt | null> {
  if (hashes.length === 0) return Promise.resolve(null);
  return new Promise((resolve) => {
    let waiting = hashes.length;
    for (const hash of hashes) {
      network.executor
        .waitForReceipt(hash, timeoutMs)
        .catch(() => null)
        .then((receipt) => {
          waiting -= 1;
          if (receipt) resolve(receipt);
          else if (waiting === 0) resolve(null);
        });
    }
  });
}
