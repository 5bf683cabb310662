import type { PaymentPayload } from "@x402/core/types";
import { SettleError } from "@x402/core/types";
import {
  appendPaymentIdentifierToExtensions,
  declarePaymentIdentifierExtension,
  PAYMENT_IDENTIFIER,
} from "@x402/extensions";
import type { Address } from "viem";
import { chainOf } from "../support/chain";

/** A payment carrying x402's payment-identifier as @x402/extensions' client writes it: the declaration, with an id. */
export function withIdentifier(payment: PaymentPayload, id: string): PaymentPayload {
  const extensions: Record<string, unknown> = {
    ...payment.extensions,
    [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(),
  };
  appendPaymentIdentifierToExtensions(extensions, id);
  return { ...payment, extensions };
}

/** A fresh id in x402's format. */
export const freshId = () => `pay_${crypto.randomUUID().replaceAll("-", "")}`;

/** How many transactions the executors have sent on the network: the chain's count, whatever our records say. */
export async function executorNonces(network: "bsc" | "base", executors: readonly Address[]) {
  const counts = await Promise.all(
    executors.map((address) => chainOf(network).public.getTransactionCount({ address, blockTag: "pending" })),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

/** A settle through x402's HTTPFacilitatorClient: its answer, or the status and x402 body it threw on. */
export async function settleThrough(settle: () => Promise<unknown>) {
  try {
    return { status: 200, body: (await settle()) as Record<string, unknown> };
  } catch (error) {
    if (!(error instanceof SettleError)) throw error;
    const { statusCode, errorReason, errorMessage, transaction, payer } = error;
    return { status: statusCode, body: { success: false, errorReason, errorMessage, transaction, payer } };
  }
}
