import { erc20Abi } from "@relay402/client/wire/abis";
import type { Address, TransactionReceipt } from "viem";
import { resumeSend, type SendOutcome, sendDurably } from "../chain/durable-send";
import { BroadcastRejectedError } from "../chain/errors";
import type { NetworkRuntime, Networks } from "../chain/networks";
import { fetchReceipt } from "../chain/receipt-poller";
import { forEachAtMost } from "../concurrency/at-most";
import { createSingleFlight } from "../concurrency/single-flight";
import type { DenyCounters } from "../deny/deny-counters";
import type { RecordFilter } from "../lifecycle/orphans";
import { type Logger, shortReason } from "../logger";
import { nodeVerdict, queuedBehind, unacceptableApprove } from "./approve-preflight";
import { approvePriceRefusal } from "./approve-price-bounds";
import { approveCosts, feeOf } from "./funding-costs";
import { minedAtFundingNonce } from "./funding-search";
import type { FundedApproval, FundingStore } from "./funding-store";
import { type ApproveRefusal, approveCost, approveMismatch, refuseApprove, type SignedApprove } from "./signed-approve";

/** What a payment asks of its approve: who pays, which token, the spender it must allow, and how much. */
export type ApproveNeed = { payer: Address; token: Address; spender: Address; amount: bigint };

export type ApproveReady = { ok: true; funding: bigint };
export type Assessment = ApproveReady & { allowanceReady: boolean };

/** The deny counters' reason for a payer whose funded approve never came (counted like a payer's revert). */
export const DIVERTED_REASON = "took funding for an approve and used its nonce for another transaction";

/** The deny counters' reason for a payer whose funded approve the node refused, or that was never mined. */
export const LOST_REASON = "took funding for an approve that was never mined";

/** A value transfer's gas: what the funding costs our executor. */
const FUNDING_GAS = 21_000n;

/**
 * How long a funded approve may stay broadcast and unmined (`approve_sent`) before it is given up: `abandoned`,
 * counted against its payer and shown as lost. An approve the node holds at a fee the chain has passed can still
 * be mined later; its allowance then serves a next payment, unfunded.
 */
export const APPROVE_DEADLINE_MS = 30 * 60_000;

/** How many records a reconciliation drives at once. */
export const RECONCILE_CONCURRENCY = 25;

/**
 * A reconciliation's wait for one record: a few blocks, not a settle's whole receipt timeout (what is not mined by
 * then is looked at again by the next sweep). A sweep of n records then takes about ⌈n / 25⌉ of these.
 */
export const reconcileWaitMs = (network: NetworkRuntime) =>
  Math.min(network.config.receiptTimeoutMs, Math.max(2_000, 3 * network.config.blockTimeMs));

/** A node's refusal that says nothing about the transaction: its pool is full, or it limits us. */
const TRANSIENT_REFUSAL = /pool is full|txpool is full|rate limit|too many requests/i;

/**
 * The funding kernel (docs/x402.md, docs/payments.md "Funded approve"): a payer without native coins hands over a
 * signed `approve`; this checks it against the payment and the operator's caps, funds the payer exactly the
 * approve's cost (only when its balance is short, once per payer and token until the allowance pays, within the
 * network's budget per window), broadcasts the approve and waits for it. The record is written before the funding
 * is signed, the funding journaled before it is broadcast (the durable sender), and a restart resumes both; one
 * record per payer nonce, so a payer is never funded twice for one nonce. The payment's own settlement follows,
 * by its flow, once `perform` answers ok.
 */
export function createFundedApprovals(deps: {
  store: FundingStore;
  networks: Networks;
  deny: DenyCounters;
  logger: Logger;
}) {
  const once = createSingleFlight();
  const alreadyFunded = () =>
    refuseApprove("already_funded", "this payer was already funded for an approve of this token");

  /** Every check without a write: the approve's fields and caps, the payer's state on the chain, the rules. */
  async function assess(
    network: NetworkRuntime,
    approve: SignedApprove,
    need: ApproveNeed,
  ): Promise<Assessment | ApproveRefusal> {
    const caps = network.config.fundedApprove;
    if (!caps.enabled) return refuseApprove("disabled", `funded approves are off on ${network.name}`);
    const token = network.token(need.token);
    if (!token) return refuseApprove("target", `${need.token} is not a token served on ${network.name}`);
    const mismatch = approveMismatch(approve, {
      ...need,
      chainId: network.config.chainId,
      maxGas: caps.maxGas,
      maxFeePerGas: caps.maxFeePerGas,
    });
    if (mismatch) return mismatch;
    const unacceptable = unacceptableApprove(approve);
    if (unacceptable) return unacceptable;
    let nonce: number;
    let balance: bigint;
    let allowance: bigint;
    let baseFee: bigint;
    try {
      [nonce, balance, allowance, baseFee] = await Promise.all([
        network.client.getTransactionCount({ address: approve.from, blockTag: "pending" }),
        network.client.getBalance({ address: approve.from }),
        network.client.readContract({
          address: need.token,
          abi: erc20Abi,
          functionName: "allowance",
          args: [need.payer, need.spender],
        }),
        network.client.getBlock({ blockTag: "latest" }).then((block) => block.baseFeePerGas ?? 0n),
      ]);
    } catch (error) {
      return refuseApprove("unreadable", `could not read the payer's state: ${shortReason(error)}`);
    }
    if (allowance >= need.amount) return { ok: true, funding: 0n, allowanceReady: true };
    if (approve.nonce !== nonce)
      return refuseApprove("nonce", `the approve's nonce must be the payer's next one (${nonce})`);
    // Under the base fee the approve is not mined: a funding would only sit with the payer (free to spend it).
    if (approve.maxFeePerGas < baseFee)
      return refuseApprove(
        "fee_too_low",
        `the approve's max fee per gas is below the chain's base fee (${baseFee} wei): it would not be mined`,
      );
    if (await deps.deny.isDenied(network.name, "payer", need.payer))
      return refuseApprove("payer_denied", "this payer is refused after repeated failed settlements");
    const cost = approveCost(approve);
    const funding = balance >= cost ? 0n : cost - balance;
    if (funding > 0n) {
      const priced = await approvePriceRefusal(network, approve, baseFee);
      if (!priced.ok) return priced;
    }
    if (funding > 0n && need.amount < token.fundedApproveMinPayment)
      return refuseApprove(
        "min_payment",
        `a payment onboarded with a funded approve must be at least ${token.fundedApproveMinPayment}`,
      );
    if (funding > 0n) {
      const open = await deps.store.openFunding(network.name, need.payer, need.token);
      if (open && open.approveHash !== approve.hash) return alreadyFunded();
      const queued = await queuedBehind(network, approve.from, nonce);
      if (queued) return queued;
    }
    return { ok: true, funding, allowanceReady: false };
  }

  /** The record's funding, sent or resumed: null once mined, else the refusal (the record released where it can be). */
  async function fund(network: NetworkRuntime, record: FundedApproval, waitMs: number): Promise<ApproveRefusal | null> {
    let outcome: SendOutcome;
    if (record.status === "pending") {
      outcome = await sendDurably(
        network,
        { to: record.payer as Address, value: BigInt(record.fundingWei), data: "0x", gas: FUNDING_GAS },
        {
          signed: (hash, raw) => deps.store.fundingSent(record.id, hash, raw),
          replaced: (hash) => deps.store.fundingReplaced(record.id, hash),
        },
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
      const words = error instanceof BroadcastRejectedError ? (error.details ?? error.message) : null;
      if (words !== null && !TRANSIENT_REFUSAL.test(words)) {
        // Funded, yet refused: the payer holds the funding and the approve can never be mined as signed.
        const late = await fetchReceipt(network.client, record.approveHash as `0x${string}`).catch(() => null);
        if (!late) {
          await lose(network, record, "refused", shortReason(words));
          return refuseApprove("node_refused", `the node refused the approve: ${shortReason(words)}`);
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

  async function perform(network: NetworkRuntime, approve: SignedApprove, need: ApproveNeed) {
    const settleWait = network.config.receiptTimeoutMs;
    const known = await deps.store.find(network.name, approve.from, approve.nonce);
    if (known) {
      if (known.approveHash !== approve.hash)
        return refuseApprove("nonce", "another approve of this payer nonce is already being funded");
      return drive(network, known, settleWait);
    }
    const assessed = await assess(network, approve, need);
    if (!assessed.ok || assessed.allowanceReady) return assessed;
    if (assessed.funding > 0n) {
      const verdict = await nodeVerdict(network, approve);
      if (verdict) return verdict;
    }
    const caps = network.config.fundedApprove;
    const ago = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString();
    const claim = await deps.store.claim(
      {
        network: network.name,
        payer: approve.from,
        nonce: approve.nonce,
        token: approve.token,
        spender: approve.spender,
        approveRaw: approve.raw,
        approveHash: approve.hash,
        fundingWei: assessed.funding.toString(),
      },
      { wei: caps.budgetWei, since: ago(caps.budgetWindowSeconds) },
      { wei: caps.payerCapWei, since: ago(caps.payerCapWindowSeconds) },
    );
    if (claim.kind === "over_budget")
      return refuseApprove("budget", `the funding budget of ${network.name} is spent for now; try again later`);
    if (claim.kind === "payer_capped")
      return refuseApprove("payer_cap", `this payer's fundings on ${network.name} reached its cap for now; try later`);
    if (claim.kind === "already_funded") return alreadyFunded();
    if (claim.kind === "exists" && claim.record.approveHash !== approve.hash)
      return refuseApprove("nonce", "another approve of this payer nonce is already being funded");
    return drive(network, claim.record, settleWait);
  }

  return {
    /** Verify: whether the approve would be funded and broadcast (no write, nothing sent). */
    assess,
    /**
     * Settle: the approve made real (funded if needed, broadcast, mined); ok with what it cost us, or why not.
     * Concurrent calls for one approve share one run; other instances meet at the record's unique key.
     */
    perform: (network: NetworkRuntime, approve: SignedApprove, need: ApproveNeed) =>
      once(`${network.name}:${approve.hash}`, () => perform(network, approve, need)),
    /** The payment the approve was for was paid: the payer may be funded again for this token. */
    markUsed: (network: NetworkRuntime, need: ApproveNeed) => deps.store.markUsed(network.name, need.payer, need.token),
    /**
     * After a restart, and in every orphan sweep: each funding left is resumed and its approve awaited, or the
     * record released. Records run side by side, each waiting a few blocks at most (reconcileWaitMs), so a sweep
     * over many stuck records, which may hold the reconciliation lock, ends in a bounded time.
     */
    async reconcile(which?: RecordFilter) {
      const chosen: { network: NetworkRuntime; record: FundedApproval }[] = [];
      for (const record of await deps.store.unfinished()) {
        if (which && !(await which({ ...record, rawTx: record.fundingRawTx }))) continue;
        const network = deps.networks.all().find((candidate) => candidate.name === record.network);
        if (!network) continue;
        // Never signed: nobody was paid, and the payment may never come back, so nothing is sent for it now.
        if (record.status === "pending" && record.fundingWei !== "0") {
          await deps.store.release(record.id);
          continue;
        }
        chosen.push({ network, record });
      }
      await forEachAtMost(chosen, RECONCILE_CONCURRENCY, async ({ network, record }) => {
        const outcome = await once(`${network.name}:${record.approveHash}`, () =>
          drive(network, record, reconcileWaitMs(network)),
        ).catch((error) => refuseApprove("unreadable", shortReason(error)));
        deps.logger.info({
          event: "funded_approve_reconciled",
          network: record.network,
          payer: record.payer,
          outcome: outcome.ok ? "approved" : outcome.code,
        });
      });
    },
  };
}

export type FundedApprovals = ReturnType<typeof createFundedApprovals>;
