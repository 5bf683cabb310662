import { type Address, type Hex, parseTransaction, type TransactionReceipt } from "viem";
import { resumeSend, type SendOutcome, sendDurably } from "../chain/durable-send";
import { BroadcastRejectedError } from "../chain/errors";
import type { NetworkRuntime } from "../chain/networks";
import { fetchReceipt } from "../chain/receipt-poller";
import type { DenyCounters } from "../deny/deny-counters";
import { type Logger, shortReason } from "../logger";
import { INSUFFICIENT_FUNDS } from "./approve-preflight";
import { approveCosts, feeOf } from "./funding-costs";
import { minedAtFundingNonce } from "./funding-search";
import type { FundedApproval, FundingStore } from "./funding-store";
import { type ApproveRefusal, refuseApprove } from "./signed-approve";

export type ApproveReady = { ok: true; funding: bigint };

/** The deny counters' reason for a payer whose funded approve never came (counted like a payer's revert). */
export const DIVERTED_REASON = "took funding for an approve and used its nonce for another transaction";

/** The deny counters' reason for a payer whose funded approve the node refused, or that was never mined. */
export const LOST_REASON = "took funding for an approve that was never mined";

/** A value transfer's gas: what the funding costs our executor. */
const FUNDING_GAS = 21_000n;

/**
 * The funding's gas for a payer with code (an EIP-7702 delegation): a transfer to it runs its delegate's code, which
 * 21,000 gas leaves no gas for, so the funding would revert. It gets room for a delegate's receive, and is simulated
 * first, so a delegate that refuses it costs nothing (docs/security.md).
 */
export const DELEGATED_FUNDING_GAS = 50_000n;

/** The funding transfer for a payer: plain, or (code, or code unreadable) with room for its code, simulated first. */
async function fundingTransfer(network: NetworkRuntime, payer: Address, value: bigint) {
  const code = await network.client.getCode({ address: payer }).catch(() => "unreadable");
  const plain = code === undefined || code === "0x";
  return {
    request: { to: payer, value, data: "0x" as const, gas: plain ? FUNDING_GAS : DELEGATED_FUNDING_GAS },
    options: { simulate: !plain },
  };
}

/**
 * How long a funded approve may stay broadcast and unmined (`approve_sent`) before it is given up: `abandoned`,
 * counted against its payer and shown as lost. An approve the node holds at a fee the chain has passed can still
 * be mined later; its allowance then serves a next payment, unfunded.
 */
export const APPROVE_DEADLINE_MS = 30 * 60_000;

/** A node's refusal that says nothing about the transaction: its pool is full, or it limits us. */
const TRANSIENT_REFUSAL = /pool is full|txpool is full|rate limit|too many requests/i;

/**
 * The node's words when its refusal of a funded approve is final, else null: a transport failure, a full pool or a
 * rate limit say nothing of the approve, nor does "insufficient funds" while the payer still holds the approve's cost
 * (a node behind the one that mined the funding, as a load-balanced RPC may be). Funds gone (a delegate moved them)
 * or any other refusal is final.
 */
async function finalRefusal(network: NetworkRuntime, record: FundedApproval, error: unknown): Promise<string | null> {
  if (!(error instanceof BroadcastRejectedError)) return null;
  const words = shortReason(error.details ?? error.message);
  if (TRANSIENT_REFUSAL.test(words)) return null;
  if (!INSUFFICIENT_FUNDS.test(words)) return words;
  const approve = parseTransaction(record.approveRaw as Hex);
  const cost = (approve.gas ?? 0n) * (approve.maxFeePerGas ?? approve.gasPrice ?? 0n);
  const balance = await network.client.getBalance({ address: record.payer as Address }).catch(() => null);
  return balance !== null && balance < cost ? words : null;
}

/**
 * A funded approve's record driven from wherever it stands to its approve's outcome: the funding sent or resumed
 * (the durable sender, replacements journaled), the approve broadcast and awaited; what will never be mined ends
 * terminal (`refused`, `abandoned`, `diverted`, `reverted`) and, when it was funded, counted against the payer.
 */
export function createApproveDriver(deps: { store: FundingStore; deny: DenyCounters; logger: Logger }) {
  /** The record's funding, sent or resumed: null once mined, else the refusal (the record released where it can be). */
  async function fund(network: NetworkRuntime, record: FundedApproval, waitMs: number): Promise<ApproveRefusal | null> {
    let outcome: SendOutcome;
    if (record.status === "pending") {
      const transfer = await fundingTransfer(network, record.payer as Address, BigInt(record.fundingWei));
      outcome = await sendDurably(
        network,
        transfer.request,
        {
          signed: (hash, raw) => deps.store.fundingSent(record.id, hash, raw),
          replaced: (hash) => deps.store.fundingReplaced(record.id, hash),
        },
        transfer.options,
      );
    } else {
      outcome = await resumeSend(network, { txHash: record.fundingTxHash, rawTx: record.fundingRawTx }, waitMs);
    }
    if (outcome.status === "superseded" && record.fundingRawTx) {
      // A replacement whose hash we did not keep may be what was mined: the chain says whether the payer was paid.
      const mined = await minedAtFundingNonce(network, {
        rawTx: record.fundingRawTx as `0x${string}`,
        payer: record.payer as Address,
        value: BigInt(record.fundingWei),
        createdAt: record.createdAt,
      });
      if (mined.kind === "funding") outcome = { status: "mined", receipt: mined.receipt };
      else if (mined.kind === "unknown") {
        if (pastDeadline(record)) await lose(network, record, "abandoned", "the funding's fate could not be read");
        return refuseApprove("pending", "the funding's outcome cannot be read yet; settle again");
      }
    }
    switch (outcome.status) {
      case "mined":
        await deps.store.recordCosts(record.id, { fundingFeeWei: feeOf(outcome.receipt) });
        if (outcome.receipt.status === "success") return null;
        await deps.store.setStatus(record.id, "reverted", "the funding reverted");
        return refuseApprove("unreadable", "the funding transaction reverted");
      case "would_revert":
        // Only a payer with code is simulated: its delegate refuses the coins, and nothing was signed.
        await deps.store.release(record.id);
        return refuseApprove("payer_code", `the payer's code refuses the funding transfer: ${outcome.reason}`);
      case "not_sent": {
        // Not journaled because another request (another instance) sent the funding first: that one goes on.
        const current = await deps.store.find(record.network, record.payer, record.nonce);
        if (current && current.status !== "pending")
          return refuseApprove("pending", "the approve is being funded for another request; settle again");
        await deps.store.release(record.id);
        return refuseApprove("unreadable", `could not send the funding: ${outcome.reason}`);
      }
      case "refused":
      case "superseded":
        // Never mined and never will be: the payer got nothing, so the record goes.
        await deps.store.setStatus(record.id, "pending");
        await deps.store.release(record.id);
        return refuseApprove("unreadable", "the funding transaction was not mined; try again");
      case "unconfirmed":
        return refuseApprove("pending", "the funding was sent and is not mined yet; settle again");
    }
  }

  /** Past the deadline of its last write: the time it became `approve_sent` (or its funding was last journaled). */
  const pastDeadline = (record: FundedApproval) => Date.now() - Date.parse(record.updatedAt) > APPROVE_DEADLINE_MS;

  /** A funded approve that will not be mined: terminal, counted against its payer when it was funded, logged. */
  async function lose(network: NetworkRuntime, record: FundedApproval, status: "refused" | "abandoned", why: string) {
    await deps.store.setStatus(record.id, status, why);
    if (record.fundingWei !== "0") {
      // Its approve burnt nothing: the payer kept the whole funding, as a diverted one does.
      await recordOutcomeCosts(network, record, "diverted");
      await deps.deny.recordRevert(network.name, "payer", record.payer, LOST_REASON);
    }
    deps.logger.warn({
      event: `funded_approve_${status}`,
      network: network.name,
      payer: record.payer,
      funding: record.fundingWei,
      reason: why,
    });
  }

  /** Waits for the approve until `deadline`: its receipt, or the payer's nonce used by another transaction. */
  async function approveOutcome(
    network: NetworkRuntime,
    record: FundedApproval,
    deadline: number,
  ): Promise<TransactionReceipt | "diverted" | "pending"> {
    const hash = record.approveHash as `0x${string}`;
    const step = Math.max(200, network.config.blockTimeMs);
    do {
      const receipt = await network.executor.waitForReceipt(hash, Math.max(1, Math.min(step, deadline - Date.now())));
      if (receipt) return receipt;
      const mined = await network.client
        .getTransactionCount({ address: record.payer as Address, blockTag: "latest" })
        .catch(() => -1);
      if (mined > record.nonce) {
        const late = await fetchReceipt(network.client, hash).catch(() => null);
        return late ?? "diverted";
      }
    } while (Date.now() < deadline);
    return "pending";
  }

  /**
   * What the funding really cost once its approve's outcome is known: the approve's burn and what the payer kept
   * (counted against its cap), and the funding's own gas if a restart left it unrecorded.
   */
  async function recordOutcomeCosts(
    network: NetworkRuntime,
    record: FundedApproval,
    outcome: TransactionReceipt | "diverted",
  ) {
    const costs = approveCosts(BigInt(record.fundingWei), outcome);
    const current = await deps.store.find(record.network, record.payer, record.nonce);
    if (current?.fundingFeeWei === null && current.fundingTxHash) {
      const funded = await fetchReceipt(network.client, current.fundingTxHash as `0x${string}`).catch(() => null);
      if (funded) costs.fundingFeeWei = feeOf(funded);
    }
    await deps.store.recordCosts(record.id, costs);
  }

  /**
   * Drives a record from wherever it stands to its approve's outcome, waiting at most `waitMs` for each transaction
   * (a settle waits the network's receipt timeout, a reconciliation a few blocks).
   */
  async function drive(
    network: NetworkRuntime,
    record: FundedApproval,
    waitMs: number,
  ): Promise<ApproveReady | ApproveRefusal> {
    const funding = BigInt(record.fundingWei);
    switch (record.status) {
      case "approved":
      case "used":
        return { ok: true, funding };
      case "diverted":
        return refuseApprove("diverted", "the payer used the approve's nonce for another transaction");
      case "reverted":
        return refuseApprove("reverted", "the approve reverted");
      case "refused":
        return refuseApprove("node_refused", `the node refused the funded approve: ${record.error ?? "no reason"}`);
      case "abandoned":
        return refuseApprove("abandoned", "the funded approve was never mined and was given up");
      case "pending":
      case "funding_sent": {
        if (funding > 0n) {
          const refused = await fund(network, record, waitMs);
          if (refused) return refused;
        }
        await deps.store.setStatus(record.id, "approve_sent");
        record = { ...record, status: "approve_sent", updatedAt: new Date().toISOString() };
      }
    }
    try {
      await network.executor.rebroadcast(record.approveRaw as `0x${string}`);
    } catch (error) {
      const words = await finalRefusal(network, record, error);
      if (words !== null) {
        // Funded, yet refused: the payer holds the funding and the approve can never be mined as signed.
        const late = await fetchReceipt(network.client, record.approveHash as `0x${string}`).catch(() => null);
        if (!late) {
          await lose(network, record, "refused", words);
          return refuseApprove("node_refused", `the node refused the approve: ${words}`);
        }
      } else deps.logger.warn({ event: "funded_approve_broadcast", network: network.name, reason: shortReason(error) });
    }
    const outcome = await approveOutcome(network, record, Date.now() + waitMs);
    if (outcome === "pending") {
      if (!pastDeadline(record)) return refuseApprove("pending", "the approve is not mined yet; settle again");
      await lose(network, record, "abandoned", `not mined within ${APPROVE_DEADLINE_MS / 60_000} minutes`);
      return refuseApprove("abandoned", "the funded approve was never mined and was given up");
    }
    if (funding > 0n) await recordOutcomeCosts(network, record, outcome);
    if (outcome === "diverted") {
      await deps.store.setStatus(record.id, "diverted", DIVERTED_REASON);
      if (funding > 0n) await deps.deny.recordRevert(network.name, "payer", record.payer, DIVERTED_REASON);
      deps.logger.warn({
        event: "funded_approve_diverted",
        network: network.name,
        payer: record.payer,
        funding: record.fundingWei,
      });
      return refuseApprove("diverted", "the payer used the approve's nonce for another transaction");
    }
    if (outcome.status !== "success") {
      await deps.store.setStatus(record.id, "reverted", "the approve reverted");
      if (funding > 0n) await deps.deny.recordRevert(network.name, "payer", record.payer, "funded approve reverted");
      return refuseApprove("reverted", "the approve reverted");
    }
    await deps.store.setStatus(record.id, "approved");
    return { ok: true, funding };
  }

  return drive;
}

export type ApproveDriver = ReturnType<typeof createApproveDriver>;
