import { type Address, isAddressEqual } from "viem";
import type { NetworkRuntime } from "../chain/networks";
import type { PaymentRules } from "../payments/payment-rules";
import { eip3009TokenAbi, transferWithAuthorizationTypes } from "./eip3009";
import type { X402Refusal } from "./reasons";
import type { X402Eip3009Payment } from "./wire";

export type Check = { ok: true } | { ok: false; refusal: X402Refusal; message: string };

const refuse = (refusal: X402Refusal, message: string): Check => ({ ok: false, refusal, message });

/** The EIP-712 domain the payer signed under: the merchant's `extra`, else the token's own (ERC-5267). */
async function domainOf(network: NetworkRuntime, payment: X402Eip3009Payment) {
  if (payment.requirements.domain) return payment.requirements.domain;
  try {
    const [, name, version] = await network.client.readContract({
      address: payment.requirements.asset,
      abi: eip3009TokenAbi,
      functionName: "eip712Domain",
    });
    return { name, version };
  } catch {
    return null;
  }
}

/**
 * The checks of x402's `exact` EIP-3009 facilitator, in its order, with relay402's own rules (minimum,
 * validBefore margin, denied payer, token enabled) among them; then the chain: nonce unused and balance.
 * Whether the transfer really goes through is the settle's simulation.
 */
export async function checkX402Payment(
  network: NetworkRuntime,
  rules: PaymentRules,
  payment: X402Eip3009Payment,
  now: bigint,
): Promise<Check> {
  const { authorization: auth, requirements } = payment;
  if (!network.token(requirements.asset)?.eip3009)
    return refuse("tokenNotEnabled", `${requirements.asset} is not an EIP-3009 token served on ${network.name}`);
  const domain = await domainOf(network, payment);
  if (!domain) return refuse("missingDomain", "paymentRequirements.extra needs the token's EIP-712 name and version");

  let signatureValid: boolean;
  try {
    signatureValid = await network.client.verifyTypedData({
      address: auth.from,
      domain: { ...domain, chainId: network.config.chainId, verifyingContract: requirements.asset },
      types: transferWithAuthorizationTypes,
      primaryType: "TransferWithAuthorization",
      message: {
        from: auth.from,
        to: auth.to,
        value: auth.value,
        validAfter: auth.validAfter,
        validBefore: auth.validBefore,
        nonce: auth.nonce,
      },
      signature: auth.signature,
    });
  } catch {
    signatureValid = false;
  }
  if (!signatureValid) return refuse("badSignature", "the signature does not recover to authorization.from");
  if (!isAddressEqual(auth.to, requirements.payTo)) return refuse("recipientMismatch", "authorization.to is not payTo");

  const margin = BigInt(rules.validBeforeMarginSeconds);
  if (auth.validBefore < now + margin)
    return refuse("validBeforeMargin", `validBefore must be at least ${margin} s after now`);
  if (auth.validAfter > now) return refuse("notYetValid", "the authorization is not valid yet");
  if (auth.value !== requirements.amount)
    return refuse("valueMismatch", "authorization.value is not the required amount");
  if (auth.value === 0n) return refuse("zeroValue", "value must be above zero");
  const minimum = rules.minPaymentValue(requirements.asset);
  if (auth.value < minimum)
    return refuse("belowMinimum", `value must be at least ${minimum} (the token's minimum payment)`);
  if (rules.isPayerDenied(auth.from))
    return refuse("payerDenied", "this payer is refused after repeated on-chain reverts");

  const token = { address: requirements.asset as Address, abi: eip3009TokenAbi } as const;
  try {
    const [used, balance] = await Promise.all([
      network.client.readContract({ ...token, functionName: "authorizationState", args: [auth.from, auth.nonce] }),
      network.client.readContract({ ...token, functionName: "balanceOf", args: [auth.from] }),
    ]);
    if (used) return refuse("nonceUsed", "this authorization's nonce is already used or canceled");
    if (balance < auth.value) return refuse("insufficientBalance", "the payer's balance is below the value");
  } catch {
    return refuse("unexpectedVerify", "could not read the token's state");
  }
  return { ok: true };
}
