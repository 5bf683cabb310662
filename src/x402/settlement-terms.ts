import { paymentIdOf } from "@relay402/client/wire/payment-id";
import { type Address, encodeFunctionData, type Hex } from "viem";
import type { NetworkRuntime } from "../chain/networks";
import { eip3009TokenAbi } from "./eip3009";
import { nonceKey, PERMIT2 } from "./permit2";
import { permit2SettleRequest } from "./permit2-payment";
import type { X402Payment } from "./wire";

/**
 * What a payment settles, the same for both methods: the record's key (the contract whose nonce space it
 * uses: the token for EIP-3009, Permit2 for Permit2), its terms, and the transaction that executes it.
 */
export function settlementOf(network: NetworkRuntime, payment: X402Payment) {
  if (payment.method === "eip3009") {
    const auth = payment.authorization;
    return {
      key: { network: network.name, contract: auth.token, payer: auth.from, nonce: auth.nonce },
      terms: {
        token: auth.token,
        recipient: auth.to,
        amount: auth.value.toString(),
        validAfter: Number(auth.validAfter),
        validBefore: Number(auth.validBefore),
        signature: auth.signature,
      },
      request: () => ({
        to: auth.token,
        data: encodeFunctionData({
          abi: eip3009TokenAbi,
          functionName: "transferWithAuthorization",
          args: [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, auth.signature],
        }),
        gas: BigInt(network.config.settleGasLimit),
      }),
    };
  }
  const permit = payment.permit;
  return {
    key: { network: network.name, contract: PERMIT2, payer: permit.from, nonce: nonceKey(permit.nonce) },
    terms: {
      token: permit.token,
      recipient: permit.to,
      amount: permit.amount.toString(),
      validAfter: Number(permit.validAfter),
      validBefore: Number(permit.deadline),
      signature: permit.signature,
    },
    /** With the payment's EIP-2612 permit (`settleWithPermit`) unless `plain`. */
    request: (plain?: boolean) => permit2SettleRequest(network, permit, plain ? undefined : payment.eip2612),
  };
}

/** An x402 payment's id: its nonce lives in the token's nonce space (EIP-3009) or Permit2's (wire/payment-id.ts). */
export function x402PaymentId(network: NetworkRuntime, payment: X402Payment): Hex {
  const { key } = settlementOf(network, payment);
  return paymentIdOf({
    chainId: network.config.chainId,
    contract: key.contract as Address,
    payer: key.payer as Address,
    nonce: key.nonce as Hex,
  });
}
