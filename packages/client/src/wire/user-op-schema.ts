import { Type as t } from "@sinclair/typebox";
import { AddressField } from "./fields.js";

// Packed v0.7 UserOps hold gas limits and fees in 16 bytes each; a wider value could not be hashed or sent.
const Quantity128 = t.String({ pattern: "^0x[0-9a-fA-F]{1,32}$", description: "hex quantity (≤ 16 bytes)" });
const Quantity256 = t.String({ pattern: "^0x[0-9a-fA-F]{1,64}$", description: "hex quantity (≤ 32 bytes)" });
const HexBytes = (maxLength: number, description: string) =>
  t.String({ pattern: "^0x([0-9a-fA-F]{2})*$", maxLength, description });

export const SignatureField = HexBytes(1_000, "the owner's signature of userOpHash, equal to userOp.signature");

/** The interface's UserOp: ERC-4337 v0.7, unpacked, every field a string, quantities as hex. */
export const UserOpSchema = t.Object(
  {
    sender: AddressField,
    nonce: Quantity256,
    callData: HexBytes(30_000, "encoded ERC-7579 batch execution"),
    callGasLimit: Quantity128,
    verificationGasLimit: Quantity128,
    preVerificationGas: Quantity256,
    maxFeePerGas: Quantity128,
    maxPriorityFeePerGas: Quantity128,
    paymaster: AddressField,
    paymasterVerificationGasLimit: Quantity128,
    paymasterPostOpGasLimit: Quantity128,
    paymasterData: HexBytes(1_000, "paymaster validity window and signature"),
    signature: HexBytes(1_000, "`0x` unsigned; the owner's signature of userOpHash"),
    factory: t.Optional(AddressField),
    factoryData: t.Optional(HexBytes(10_000, "factory call data")),
  },
  { description: "ERC-4337 v0.7 UserOperation, unpacked, quantities as hex" },
);
