import { Type as t } from "@sinclair/typebox";
import { AddressField, Bytes32Field, NetworkField, PaymentIdField, UintString } from "./fields.js";
import { UserOpSchema } from "./user-op-schema.js";

export const MAX_WALLET_TRANSACTIONS = 20;

export const WalletPaymentVerifyBodySchema = t.Object({
  walletAddress: AddressField,
  transactions: t.Array(t.Object({ to: AddressField, amount: UintString, token: AddressField }), {
    minItems: 1,
    maxItems: MAX_WALLET_TRANSACTIONS,
  }),
  paymentRequirements: t.Object({ network: NetworkField }),
});

export const WalletPaymentVerifyResponseSchema = t.Object({
  isValid: t.Boolean(),
  payer: t.String({ description: "owner EOA of the smart wallet" }),
  userOp: UserOpSchema,
  userOpHash: Bytes32Field,
  feeAmount: t.String({ description: "facilitator fee in token wei" }),
  totalAmount: t.String({ description: "sum of amounts plus feeAmount" }),
});

export const WalletPaymentSettleResponseSchema = t.Object({
  success: t.Boolean(),
  paymentId: PaymentIdField,
  txHash: Bytes32Field,
  userOpHash: Bytes32Field,
  payments: t.Array(t.Object({ to: t.String(), amount: t.String(), token: t.String() })),
});
