import { type Address, getAddress, type Hex, isAddress, isAddressEqual } from "viem";
import type { Networks } from "../chain/networks";
import type { FundedApprovals } from "../onboarding/funded-approvals";
import { type ApproveRefusal, type ApproveRefusalCode, readSignedApprove } from "../onboarding/signed-approve";
import { ERC20_APPROVAL_GAS_SPONSORING, isObject, type Json } from "./extensions";
import type { X402Facilitator, X402SettleResponse, X402VerifyResponse } from "./facilitator";
import { x402NetworkOf } from "./networks";
import { PERMIT2 } from "./permit2";
import { X402_REASONS } from "./reasons";
import { x402PaymentId } from "./settlement-terms";
import { parseX402Body, payerOf, type X402Body } from "./wire";

/**
 * x402's `erc20ApprovalGasSponsoring` extension (@x402/extensions 2.27): for a token without EIP-2612 (BSC USDT),
 * a payer without Permit2 allowance adds, beside its Permit2 payment, a signed but unbroadcast
 * `approve(Permit2, MaxUint256)` transaction (`paymentPayload.extensions.erc20ApprovalGasSponsoring.info`:
 * from, asset, spender, amount, signedTransaction, version). The facilitator funds the payer's gas if it lacks it,
 * broadcasts the approve, then settles the payment: here the funding kernel (src/onboarding/) does the first two,
 * and the plain Permit2 settlement the last.
 */

/** Our refusals in x402's words: @x402/evm's erc20_approval_* codes where it has one, the same prefix otherwise. */
const REASONS: Record<ApproveRefusalCode, string> = {
  malformed: "erc20_approval_tx_parse_failed",
  signer: "erc20_approval_tx_signer_mismatch",
  chain: "erc20_approval_tx_wrong_chain",
  target: "erc20_approval_tx_wrong_target",
  calldata: "erc20_approval_tx_invalid_calldata",
  spender: "erc20_approval_tx_wrong_spender",
  amount: "erc20_approval_amount_too_low",
  gas_limit: "erc20_approval_gas_limit_too_high",
  gas_too_low: "erc20_approval_gas_limit_too_low",
  signature: "erc20_approval_tx_invalid_signature",
  fee: "erc20_approval_fee_too_high",
  fee_too_low: "erc20_approval_fee_too_low",
  nonce: "erc20_approval_tx_wrong_nonce",
  min_payment: "erc20_approval_payment_too_small",
  already_funded: "erc20_approval_already_funded",
  budget: "erc20_approval_budget_spent",
  payer_cap: "erc20_approval_payer_cap_reached",
  payer_denied: X402_REASONS.payerDenied,
  payer_code: "erc20_approval_tx_failed",
  disabled: "erc20_approval_not_supported",
  diverted: "erc20_approval_broadcast_failed",
  reverted: "erc20_approval_tx_failed",
  node_refused: "erc20_approval_broadcast_failed",
  abandoned: "erc20_approval_broadcast_failed",
  pending: X402_REASONS.settlementPending,
  unreadable: X402_REASONS.unexpectedSettle,
};

/**
 * The extension's info of a body, if the payload carries a signed approve (v2 only: v1 payloads have no
 * extensions). A client that needs no approve echoes the merchant's declaration, without one: no extension then.
 */
const infoOf = (body: X402Body): Json | null => {
  const payload = body.paymentPayload;
  const extension =
    isObject(payload) && isObject(payload.extensions) ? payload.extensions[ERC20_APPROVAL_GAS_SPONSORING] : null;
  const info = isObject(extension) && isObject(extension.info) ? extension.info : null;
  return info && "signedTransaction" in info ? info : null;
};

/**
 * The x402 facilitator with the extension: a body without it goes through unchanged. With it, every check of
 * the Permit2 payment runs first (the facilitator's, which refuses only the missing allowance last), then the
 * approve's; settle then has the kernel fund and broadcast the approve and the facilitator settle the payment.
 */
export function withErc20ApprovalSponsoring(
  x402: X402Facilitator,
  deps: { networks: Networks; onboarding: FundedApprovals },
): X402Facilitator {
  async function read(body: X402Body) {
    const info = infoOf(body);
    if (!info) return null;
    const parsed = parseX402Body(body);
    if (!parsed.ok || parsed.payment.method !== "permit2") return null;
    const { payment } = parsed;
    const network = x402NetworkOf(deps.networks, payment.version, payment.wireNetwork);
    if (!network) return null;
    const payer = payerOf(payment);
    const base = { network, payer, wireNetwork: payment.wireNetwork, paymentId: x402PaymentId(network, payment) };
    const refused = (refusal: ApproveRefusal) => ({ ...base, ok: false as const, refusal });
    const { from, asset, spender } = info;
    if (typeof from !== "string" || !isAddress(from) || !isAddressEqual(from, payer))
      return refused({ ok: false, code: "signer", message: "the extension's from is not the payer" });
    if (typeof asset !== "string" || !isAddress(asset) || !isAddressEqual(asset, payment.requirements.asset))
      return refused({ ok: false, code: "target", message: "the extension's asset is not the required asset" });
    if (typeof spender !== "string" || !isAddress(spender) || !isAddressEqual(spender, PERMIT2))
      return refused({ ok: false, code: "spender", message: `the extension's spender must be Permit2 ${PERMIT2}` });
    const signed = await readSignedApprove(info.signedTransaction);
    if (!signed.ok) return refused(signed);
    const need = {
      payer,
      token: getAddress(asset) as Address,
      spender: PERMIT2,
      amount: payment.requirements.amount,
    };
    return { ...base, ok: true as const, approve: signed.approve, need };
  }

  const invalid = (refusal: ApproveRefusal, payer: string): X402VerifyResponse => ({
    isValid: false,
    invalidReason: REASONS[refusal.code],
    invalidMessage: refusal.message,
    payer,
  });
  const failure = (
    refusal: ApproveRefusal,
    sponsored: { payer: string; wireNetwork: string; paymentId: Hex },
  ): X402SettleResponse => ({
    success: false,
    errorReason: REASONS[refusal.code],
    errorMessage: refusal.message,
    payer: sponsored.payer,
    transaction: "",
    network: sponsored.wireNetwork,
    extra: { paymentId: sponsored.paymentId },
  });
  /** The facilitator's verdict leaves only the allowance missing, which the approve brings. */
  const onlyAllowanceMissing = (verdict: X402VerifyResponse) =>
    !verdict.isValid && verdict.invalidReason === X402_REASONS.permit2Allowance;

  return {
    ...x402,
    async verify(body) {
      const sponsored = await read(body);
      if (!sponsored) return x402.verify(body);
      const verdict = await x402.verify(body);
      if (!onlyAllowanceMissing(verdict)) return verdict;
      if (!sponsored.ok) return invalid(sponsored.refusal, sponsored.payer);
      const assessed = await deps.onboarding.assess(sponsored.network, sponsored.approve, sponsored.need);
      return assessed.ok ? { isValid: true, payer: sponsored.payer } : invalid(assessed, sponsored.payer);
    },
    async settle(body) {
      const sponsored = await read(body);
      if (!sponsored) return x402.settle(body);
      const verdict = await x402.verify(body);
      if (onlyAllowanceMissing(verdict)) {
        if (!sponsored.ok) return failure(sponsored.refusal, sponsored);
        const approved = await deps.onboarding.perform(sponsored.network, sponsored.approve, sponsored.need);
        if (!approved.ok) return failure(approved, sponsored);
      }
      const settled = await x402.settle(body);
      if (settled.success && sponsored.ok) await deps.onboarding.markUsed(sponsored.network, sponsored.need);
      return settled;
    },
  };
}
