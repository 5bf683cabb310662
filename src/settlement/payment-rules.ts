import type { Address } from "viem";
import type { NetworkRuntime } from "../chain/networks";
import { DEFAULT_MIN_PAYMENT_VALUE } from "../config/schema";
import { type DenyCounters, PAYER_DENIED_MESSAGE } from "../deny/deny-counters";
import type { Authorization } from "./authorization";

/** The service's own refusals of an EOA payment, beyond the relayer's checks. */
export type PaymentRules = {
  /** validBefore must be at least this many seconds after now: an earlier one could expire before it is mined. */
  validBeforeMarginSeconds: number;
  /** Smallest accepted value of a payment in `token` (at least 1: a zero value moves nothing but costs a settle). */
  minPaymentValue(token: Address): bigint;
  /** Asks the deny counters (the database): a promise. */
  isPayerDenied(payer: Address): Promise<boolean>;
};

export function paymentRulesFor(network: NetworkRuntime, deny: DenyCounters): PaymentRules {
  return {
    validBeforeMarginSeconds: network.config.validBeforeMarginSeconds,
    minPaymentValue: (token) => {
      const configured = network.token(token)?.minPaymentValue ?? DEFAULT_MIN_PAYMENT_VALUE;
      return configured > 1n ? configured : 1n;
    },
    isPayerDenied: (payer) => deny.isDenied(network.name, "payer", payer),
  };
}

/**
 * The first rule the authorization breaks (its message), or null. Run after the relayer's checks passed. The
 * database is asked last, only when every other rule passed.
 */
export async function brokenPaymentRule(
  rules: PaymentRules,
  authorization: Authorization,
  now: bigint,
): Promise<string | null> {
  if (authorization.value === 0n) return "value must be above zero";
  const minimum = rules.minPaymentValue(authorization.token);
  if (authorization.value < minimum) return `value must be at least ${minimum} (the token's minimum payment)`;
  const margin = BigInt(rules.validBeforeMarginSeconds);
  if (authorization.validBefore < now + margin) {
    return `authorization expires too soon: validBefore must be at least ${margin} s after now`;
  }
  if (await rules.isPayerDenied(authorization.from)) return PAYER_DENIED_MESSAGE;
  return null;
}
