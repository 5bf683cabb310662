import { t } from "elysia";
import { AddressField, Bytes32Field, NetworkField, UintString } from "../http/schemas";
import { MAX_WALLET_TRANSACTIONS } from "./verify-wallet-payment";

const Quantity = t.String({ pattern: "^0x[0-9a-fA-F]{1,64}$", description: "hex quantity" });
const HexBytes = (maxLength: number, description: string) =>
  t.String({ pattern: "^0x([0-9a-fA-F]{2})*$", maxLength, description });

export const UserOpSchema = t.Object(
  {
    sender: AddressField,
    nonce: Quantity,
    callData: HexBytes(30_000, "encoded ERC-7579 batch execution"),
    callGasLimit: Quantity,
    verificationGasLimit: Quantity,
    preVerificationGas: Quantity,
    maxFeePerGas: Quantity,
    maxPriorityFeePerGas: Quantity,
    paymaster: AddressField,
    paymasterVerificationGasLimit: Quantity,
    paymasterPostOpGasLimit: Quantity,
    paymasterData: HexBytes(1_000, "paymaster validity window and signature"),
    signature: HexBytes(1_000, "`0x` unsigned; the owner's signature of userOpHash"),
    factory: t.Optional(AddressField),
    factoryData: t.Optional(HexBytes(10_000, "factory call data")),
  },
  { description: "ERC-4337 v0.7 UserOperation, unpacked, quantities as hex" },
);

export const WalletVerifyBodySchema = t.Object({
  walletAddress: AddressField,
  transactions: t.Array(t.Object({ to: AddressField, amount: UintString, token: AddressField }), {
    minItems: 1,
    maxItems: MAX_WALLET_TRANSACTIONS,
  }),
  paymentRequirements: t.Object({ network: NetworkField }),
});

export const WalletVerifyResponseSchema = t.Object({
  isValid: t.Boolean(),
  payer: t.String({ description: "owner EOA of the smart wallet" }),
  userOp: UserOpSchema,
  userOpHash: Bytes32Field,
  feeAmount: t.String({ description: "facilitator fee in token wei" }),
  totalAmount: t.String({ description: "sum of amounts plus feeAmount" }),
});

export const WalletSettleBodySchema = t.Object({
  userOp: UserOpSchema,
  signature: HexBytes(1_000, "the owner's signature of userOpHash, equal to userOp.signature"),
});

export const WalletSettleResponseSchema = t.Object({
  success: t.Boolean(),
  txHash: Bytes32Field,
  userOpHash: Bytes32Field,
  payments: t.Array(t.Object({ to: t.String(), amount: t.String(), token: t.String() })),
});
