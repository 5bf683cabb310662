import { type Address, isAddressEqual } from "viem";
import type { ErrorCode } from "../errors";
import { ApiError } from "../errors";
import { shortReason } from "../logger";
import type { Authorization } from "./authorization";
import { brokenPaymentRule, type PaymentRules } from "./payment-rules";
import { AUTHORIZATION_STATUS, type RelayerPort } from "./relayer-port";

export type VerifyResult =
  | { isValid: true; payer: Address }
  | { isValid: false; invalidReason: ErrorCode; invalidMessage: string };

const FAILURES: Record<number, [ErrorCode, string]> = {
  [AUTHORIZATION_STATUS.badSignature]: ["signature_error", "signature does not recover to authorization.from"],
  [AUTHORIZATION_STATUS.nonceUsed]: ["nonce_error", "nonce already used or canceled"],
  [AUTHORIZATION_STATUS.notYetValid]: ["payment_verification_error", "authorization not yet valid"],
  [AUTHORIZATION_STATUS.expired]: ["payment_verification_error", "authorization expired"],
  [AUTHORIZATION_STATUS.tokenNotWhitelisted]: ["payment_verification_error", "token not whitelisted"],
  [AUTHORIZATION_STATUS.paused]: ["payment_verification_error", "relayer is paused"],
  [AUTHORIZATION_STATUS.insufficientBalance]: ["payment_verification_error", "balance too low"],
  [AUTHORIZATION_STATUS.insufficientAllowance]: ["payment_verification_error", "allowance too low"],
};

export type VerifyContext = {
  relayer: RelayerPort;
  relayerAddress: Address;
  now: () => bigint;
  /** The network's own refusals (paymentRulesFor): every caller passes them, so no path forgets one. */
  rules: PaymentRules;
};

/**
 * The five checks of the interface, in order, then "is this our relayer", then the service's own rules
 * (value above the minimum, validBefore margin, payer not denied). One RPC round trip.
 */
export async function verifyPayment(
  context: VerifyContext,
  authorization: Authorization,
  relayerContract: string,
): Promise<VerifyResult> {
  const now = context.now();
  let check: Awaited<ReturnType<RelayerPort["checkAuthorization"]>>;
  try {
    check = await context.relayer.checkAuthorization(authorization, now);
  } catch (error) {
    throw new ApiError("blockchain_error", "failed to read on-chain state", { reason: shortReason(error) });
  }
  if (check.status === AUTHORIZATION_STATUS.ok) {
    // Checked after the interface's five checks so that their order and codes stay as specified.
    if (!isAddressEqual(relayerContract as Address, context.relayerAddress)) {
      return {
        isValid: false,
        invalidReason: "payment_verification_error",
        invalidMessage: `relayerContract is not this network's relayer (${context.relayerAddress})`,
      };
    }
    const broken = brokenPaymentRule(context.rules, authorization, now);
    if (broken) return { isValid: false, invalidReason: "payment_verification_error", invalidMessage: broken };
    return { isValid: true, payer: authorization.from };
  }
  const [invalidReason, invalidMessage] = FAILURES[check.status] ?? [
    "payment_verification_error",
    `relayer rejected the authorization (status ${check.status})`,
  ];
  return { isValid: false, invalidReason, invalidMessage };
}
