import type { Address, Hash, Hex, PublicClient } from "viem";
import type { Relay402Client } from "./client.js";
import { Relay402ClientError } from "./errors.js";
import { getNetworkConfig, tokenOf } from "./get-config.js";
import { type Onboarding, onboardPayer } from "./onboarding.js";
import { defaultValidBefore, signTransferAuthorization } from "./sign-authorization.js";
import type { NetworkName, PaymentBody, PaymentSettleResult, PaymentVerifyResult, SignerClient } from "./types.js";

export type PayParameters = {
  /**
   * The payer: signs the authorization and, when the allowance is short, sends the approve (or, without the gas
   * for it, signs a permit on a token with EIP-2612, else an approve the service funds and broadcasts).
   */
  signer: SignerClient;
  publicClient: PublicClient;
  network: NetworkName;
  token: Address;
  to: Address;
  value: bigint;
  /** Approve (or permit) this much when the allowance is short (default `value`). */
  approveAmount?: bigint;
  validBefore?: number;
  nonce?: Hex;
};

export type PayResult = {
  /** The approve's hash: sent by the payer (`onboarding` "approve"), or broadcast by the service ("fundedApprove"). */
  approval: Hash | undefined;
  /**
   * How the relayer got its allowance: already there, the payer's approve, its permit sent with the payment, or its
   * signed approve the service funded and broadcast before the payment.
   */
  onboarding: Onboarding;
  body: PaymentBody;
  settlement: PaymentSettleResult;
};

/**
 * An EOA payment: get the relayer its allowance if needed (chooseOnboarding: the payer's approve, or, for a payer
 * without the gas for it, a signed permit the service submits with the payment on a token with EIP-2612, else a
 * signed approve the service funds and broadcasts within /config's `fundedApprove` caps), sign
 * TransferWithAuthorization on the relayer's domain from /config, /verify (sent once; `isValid: false` throws with
 * its reason), then /settle (retried while pending or unreachable: a repeat answers the first result). Free of fees:
 * the payee receives `value`.
 */
export async function pay(client: Relay402Client, parameters: PayParameters): Promise<PayResult> {
  const config = await getNetworkConfig(client, parameters.network);
  const relayer = config.contracts.relayer;
  const validBefore = parameters.validBefore ?? defaultValidBefore(config);
  const { onboarding, approval, payloadFields } = await onboardPayer({
    ...parameters,
    token: tokenOf(config, parameters.token),
    chainId: config.chainId,
    relayer,
    amount: parameters.value,
    deadline: validBefore,
    fundedApprove: config.fundedApprove,
  });
  const paymentPayload = await signTransferAuthorization({ ...parameters, config, validBefore });
  const body: PaymentBody = {
    paymentPayload: { ...paymentPayload, ...payloadFields },
    paymentRequirements: { network: parameters.network, relayerContract: relayer },
  };
  await verifyPayment(client, body);
  return { approval, onboarding, body, settlement: await settlePayment(client, body) };
}

/** `/verify`; an invalid payment throws Relay402ClientError with `invalidReason` as its code. */
export async function verifyPayment(client: Relay402Client, body: PaymentBody): Promise<PaymentVerifyResult> {
  const result = await client.post<PaymentVerifyResult>("/verify", body);
  if (!result.isValid) {
    throw new Relay402ClientError(
      (result.invalidReason ?? "payment_verification_error") as Relay402ClientError["code"],
      result.invalidMessage ?? "payment is not valid",
    );
  }
  return result;
}

/** `/settle`, idempotent per (network, payer, nonce): retried on network errors and while pending. */
export function settlePayment(client: Relay402Client, body: PaymentBody): Promise<PaymentSettleResult> {
  return client.post<PaymentSettleResult>("/settle", body, { idempotent: true });
}
