import { Type as t } from "@sinclair/typebox";
import { AddressField, Bytes32Field, NetworkField, UintString, UnixTimeField } from "./fields.js";

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
});

export const PaymentBodySchema = t.Object({
  paymentPayload: PaymentPayloadSchema,
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
  transaction: t.String(),
  network: t.String(),
  payer: t.String(),
  blockNumber: t.Integer(),
  payment: t.Object({ to: t.String(), amount: t.String(), token: t.String() }),
});
