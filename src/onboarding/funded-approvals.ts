import { erc20Abi } from "@relay402/client/wire/abis";
import type { Address } from "viem";
import type { NetworkRuntime, Networks } from "../chain/networks";
import { forEachAtMost } from "../concurrency/at-most";
import { createSingleFlight } from "../concurrency/single-flight";
import type { DenyCounters } from "../deny/deny-counters";
import type { RecordFilter } from "../lifecycle/orphans";
import { type Logger, shortReason } from "../logger";
import { nodeVerdict, queuedBehind, unacceptableApprove } from "./approve-preflight";
import { approvePriceRefusal } from "./approve-price-bounds";
import { type ApproveReady, createApproveDriver } from "./funded-approve-drive";
import type { FundedApproval, FundingStore } from "./funding-store";
import { type ApproveRefusal, approveCost, approveMismatch, refuseApprove, type SignedApprove } from "./signed-approve";

/** What a payment asks of its approve: who pays, which token, the spender it must allow, and how much. */
export type ApproveNeed = { payer: Address; token: Address; spender: Address; amount: bigint };

export type { ApproveReady };
export type Assessment = ApproveReady & { allowanceReady: boolean };

/** How many records a reconciliation drives at once. */
export const RECONCILE_CONCURRENCY = 25;

/**
 * A reconciliation's wait for one record: a few blocks, not a settle's whole receipt timeout (what is not mined by
 * then is looked at again by the next sweep). A sweep of n records then takes about ⌈n / 25⌉ of these.
 */
export const reconcileWaitMs = (network: NetworkRuntime) =>
  Math.min(network.config.receiptTimeoutMs, Math.max(2_000, 3 * network.config.blockTimeMs));

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
  const drive = createApproveDriver(deps);
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
