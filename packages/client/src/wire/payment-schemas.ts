import { Type as t } from "@sinclair/typebox";
import { AddressField, Bytes32Field, NetworkField, PaymentIdField, UintString, UnixTimeField } from "./fields.js";

export const PaymentPayloadSchema = t.Object({
  token: AddressField,
  payload: t.Object({
    authorization: t.Object({
      from: AddressField,
      to: AddressField,
      value: UintString,
      validAfter: UnixTimeField,
      validBefore: UnixTimeField,
      nonce: Bytes32Field,
    }),
    signature: t.String({ maxLength: 10_000, description: "EIP-712 signature (65 bytes for an EOA)" }),
  }),
  permit: t.Optional(
    t.Object(
      {
        value: UintString,
        deadline: UintString,
        signature: t.String({ maxLength: 200, description: "65-byte EIP-2612 signature (r, s, v)" }),
      },
      {
        description:
          "For a payer with no allowance to the relayer, on a token with EIP-2612: its permit letting the relayer (spender) move `value` (at least the payment) until `deadline`, signed over the token's EIP-712 domain at its next nonce. Submitted with the payment in one transaction; ignored when the allowance is already there.",
      },
    ),
  ),
});

/** An EOA payment's payload: the authorization, and for a payer without allowance nor gas, its approve to fund. */
const EoaPaymentPayloadSchema = t.Composite([
  PaymentPayloadSchema,
  t.Object({
    approval: t.Optional(
      t.Object(
        {
          signedTransaction: t.String({
            pattern: "^0x[0-9a-fA-F]+$",
            maxLength: 2050,
            description: "the payer's signed approve(relayer, amount ≥ value) transaction, not broadcast",
          }),
        },
        {
          description:
            "For a payer without allowance and without native coins: the service funds this approve's gas if needed, broadcasts it, then settles (docs/payments.md)",
        },
      ),
    ),
  }),
]);

export const PaymentBodySchema = t.Object({
  paymentPayload: EoaPaymentPayloadSchema,
  paymentRequirements: t.Object({ network: NetworkField, relayerContract: AddressField }),
});

export const PaymentVerifyResponseSchema = t.Object({
  isValid: t.Boolean(),
  payer: t.Optional(t.String()),
  invalidReason: t.Optional(t.String()),
  invalidMessage: t.Optional(t.String()),
});

export const PaymentSettleResponseSchema = t.Object({
  success: t.Boolean(),
  paymentId: PaymentIdField,
  transaction: t.String(),
  network: t.String(),
  payer: t.String(),
  blockNumber: t.Integer(),
  payment: t.Object({ to: t.String(), amount: t.String(), token: t.String() }),
});
