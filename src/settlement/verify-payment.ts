import { type Address, isAddressEqual } from "viem";
import type { ErrorCode } from "../errors";
import { ApiError } from "../errors";
import { shortReason } from "../logger";
import type { Authorization } from "../settlement/authorization";
import { brokenPaymentRule, type PaymentRules } from "../settlement/payment-rules";
import { AUTHORIZATION_STATUS, type AuthorizationCheck, type RelayerPort } from "../settlement/relayer-port";

export type VerifyResult =
  /** `permitNeeded`: the payer's allowance is short and its EIP-2612 permit grants it (settled with the permit). */
  | { isValid: true; payer: Address; permitNeeded?: boolean }
  | {
      isValid: false;
      invalidReason: ErrorCode;
      invalidMessage: string;
      /** What a client needs to fix it (settle puts it in the error's `details`; /verify answers only the message). */
      details?: Record<string, unknown>;
    };

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
 * "Is this our relayer", then the five checks of the interface in order, then the service's own rules
 * (value above the minimum, validBefore margin, payer not denied). One RPC round trip.
 */
export async function verifyPayment(
  context: VerifyContext,
  authorization: Authorization,
  relayerContract: string,
  /** The payer's EIP-2612 permit to the relayer, when it sent one: why it cannot grant the allowance, or null. */
  permitProblem?: () => Promise<{ message: string; field: string } | null>,
): Promise<VerifyResult> {
  // Before the interface's five checks (which keep their order): a client holding the wrong relayer address
  // also signed for the wrong domain and approved the wrong spender, and "signature does not recover" or
  // "allowance too low" would hide that one mistake.
  if (!isAddressEqual(relayerContract as Address, context.relayerAddress)) {
    return {
      isValid: false,
      invalidReason: "payment_verification_error",
      invalidMessage: `relayerContract is not this network's relayer (${context.relayerAddress}): sign for, approve and name that relayer`,
      details: { relayerContract: context.relayerAddress },
    };
  }
  const now = context.now();
  let check: AuthorizationCheck;
  try {
    check = await context.relayer.checkAuthorization(authorization, now);
  } catch (error) {
    throw new ApiError("blockchain_error", "failed to read on-chain state", { reason: shortReason(error) });
  }
  // The allowance is the relayer's last check: every other passed when a permit can stand in for it.
  const permitNeeded = check.status === AUTHORIZATION_STATUS.insufficientAllowance && permitProblem !== undefined;
  if (check.status === AUTHORIZATION_STATUS.ok || permitNeeded) {
    const problem = permitNeeded ? await permitProblem() : null;
    if (problem)
      return {
        isValid: false,
        invalidReason: "payment_verification_error",
        invalidMessage: problem.message,
        details: { field: `paymentPayload.permit.${problem.field}` },
      };
    const broken = await brokenPaymentRule(context.rules, authorization, now);
    if (broken) return { isValid: false, invalidReason: "payment_verification_error", invalidMessage: broken };
    return { isValid: true, payer: authorization.from, ...(permitNeeded ? { permitNeeded } : {}) };
  }
  return explainFailure(context, authorization, check);
}

/** The failed check's code and a message that says how to fix it. */
async function explainFailure(
  context: VerifyContext,
  authorization: Authorization,
  check: AuthorizationCheck,
): Promise<VerifyResult> {
  const [invalidReason, invalidMessage] = FAILURES[check.status] ?? [
    "payment_verification_error",
    `relayer rejected the authorization (status ${check.status})`,
  ];
  const failure = (message: string, details?: Record<string, unknown>): VerifyResult => ({
    isValid: false,
    invalidReason,
    invalidMessage: message,
    ...(details && { details }),
  });
  const needed = authorization.value.toString();
  switch (check.status) {
    case AUTHORIZATION_STATUS.insufficientAllowance: {
      const spender = context.relayerAddress;
      const allowance = check.allowance.toString();
      return failure(
        `${invalidMessage}: ${authorization.from} allows spender ${spender} ${allowance}, the payment needs ${needed}; approve the relayer for at least that`,
        { spender, allowance, needed },
      );
    }
    case AUTHORIZATION_STATUS.insufficientBalance: {
      const balance = check.balance.toString();
      return failure(`${invalidMessage}: ${authorization.from} holds ${balance}, the payment needs ${needed}`, {
        balance,
        needed,
      });
    }
    case AUTHORIZATION_STATUS.badSignature: {
      const domain = await context.relayer.domain().catch(() => null);
      if (!domain) return failure(invalidMessage);
      const { name, version, chainId, verifyingContract } = domain;
      return failure(
        `${invalidMessage}: sign TransferWithAuthorization for the domain { name: "${name}", version: "${version}", chainId: ${chainId}, verifyingContract: ${verifyingContract} }`,
        { expectedDomain: domain },
      );
    }
    default:
      return failure(invalidMessage);
  }
}
