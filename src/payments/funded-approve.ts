import type { NetworkRuntime } from "../chain/networks";
import { relayerOf } from "../config/capabilities";
import { ApiError, PaymentPendingError, type PendingPayment } from "../errors";
import type { ApproveNeed, FundedApprovals } from "../onboarding/funded-approvals";
import { type ApproveRefusal, readSignedApprove, type SignedApprove } from "../onboarding/signed-approve";
import type { Authorization } from "../settlement/authorization";
import { brokenPaymentRule, type PaymentRules } from "../settlement/payment-rules";
import { eoaPaymentId } from "../settlement/settle-payment";
import type { VerifyResult } from "../settlement/verify-payment";

const FIELD = "paymentPayload.approval.signedTransaction";

/**
 * A refusal of the approve in the error envelope: what to fix in the approve, or when to come back (an approve in
 * flight is the payment's pending answer, under the id of the payment it funds).
 */
function approveError(refusal: ApproveRefusal, payment: PendingPayment): ApiError {
  switch (refusal.code) {
    case "budget":
      return new ApiError("service_unavailable", refusal.message, { field: FIELD, reason: refusal.code });
    case "pending":
      return new PaymentPendingError(payment, refusal.message);
    case "unreadable":
      return new ApiError("blockchain_error", refusal.message, { reason: refusal.code });
    default:
      return new ApiError("payment_verification_error", refusal.message, { field: FIELD, reason: refusal.code });
  }
}

/** The relayer's verdict leaves only the allowance missing (its last check), which the approve brings. */
const onlyAllowanceMissing = (verdict: VerifyResult) =>
  !verdict.isValid && verdict.details !== undefined && "allowance" in verdict.details;

/**
 * relay402's EOA payment with a funded approve: a payer without allowance and native coins sends, beside its
 * authorization, a signed `approve(relayer, ≥ value)` transaction. Every check of the payment but the allowance
 * runs first (the relayer's, then the service's rules, which the relayer's missing allowance skipped), then the
 * approve's; settle has the funding kernel fund and broadcast it, then settles the authorization as any other.
 */
export function fundedApproveOf(deps: {
  onboarding: FundedApprovals;
  rulesFor(network: NetworkRuntime): PaymentRules;
  now(): bigint;
}) {
  async function read(network: NetworkRuntime, authorization: Authorization, raw: string) {
    const signed = await readSignedApprove(raw);
    if (!signed.ok) return signed;
    const need: ApproveNeed = {
      payer: authorization.from,
      token: authorization.token,
      spender: relayerOf(network),
      amount: authorization.value,
    };
    return { ok: true as const, approve: signed.approve, need };
  }

  /** The rule the relayer's allowance refusal left unchecked that the payment breaks, in words, or null. */
  const brokenRule = (network: NetworkRuntime, authorization: Authorization) =>
    brokenPaymentRule(deps.rulesFor(network), authorization, deps.now());

  return {
    async verify(
      network: NetworkRuntime,
      authorization: Authorization,
      raw: string,
      verdict: VerifyResult,
    ): Promise<VerifyResult> {
      if (!onlyAllowanceMissing(verdict)) return verdict;
      const broken = await brokenRule(network, authorization);
      if (broken) return { isValid: false, invalidReason: "payment_verification_error", invalidMessage: broken };
      const signed = await read(network, authorization, raw);
      const assessed = signed.ok ? await deps.onboarding.assess(network, signed.approve, signed.need) : signed;
      if (!assessed.ok)
        return { isValid: false, invalidReason: "payment_verification_error", invalidMessage: assessed.message };
      return { isValid: true, payer: authorization.from };
    },

    /** Before the settle: the approve funded and mined when the allowance is missing; throws the refusal. */
    async prepare(
      network: NetworkRuntime,
      authorization: Authorization,
      raw: string,
      verdict: VerifyResult,
    ): Promise<{ approve: SignedApprove; need: ApproveNeed } | null> {
      if (!onlyAllowanceMissing(verdict)) return null;
      const broken = await brokenRule(network, authorization);
      if (broken) throw new ApiError("payment_verification_error", broken);
      const payment = {
        paymentId: eoaPaymentId(network, authorization.from, authorization.nonce),
        network: network.name,
        payer: authorization.from,
      };
      const signed = await read(network, authorization, raw);
      if (!signed.ok) throw approveError(signed, payment);
      const approved = await deps.onboarding.perform(network, signed.approve, signed.need);
      if (!approved.ok) throw approveError(approved, payment);
      return signed;
    },

    /** After a paid settle: the payer may be funded again for this token. */
    settled: (network: NetworkRuntime, prepared: { need: ApproveNeed } | null) =>
      prepared ? deps.onboarding.markUsed(network, prepared.need) : Promise.resolve(),
  };
}
