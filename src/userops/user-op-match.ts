import { type RpcUserOp, USER_OP_QUANTITY_FIELDS } from "@relay402/client/wire/user-operation";
import { type Hex, recoverAddress, recoverMessageAddress } from "viem";

const QUANTITY_FIELDS = new Set<string>(USER_OP_QUANTITY_FIELDS);

/** Every UserOp field but `signature`: what the paymaster signed and the client must send back unchanged. */
export const SIGNED_FIELDS = [
  "sender",
  "nonce",
  "factory",
  "factoryData",
  "callData",
  "callGasLimit",
  "verificationGasLimit",
  "preVerificationGas",
  "maxFeePerGas",
  "maxPriorityFeePerGas",
  "paymaster",
  "paymasterVerificationGasLimit",
  "paymasterPostOpGasLimit",
  "paymasterData",
] as const;

function normalized(field: string, value: string | undefined): string {
  if (value === undefined) return "";
  return QUANTITY_FIELDS.has(field) ? BigInt(value).toString() : value.toLowerCase();
}

/** The fields (by interface name) in which `given` differs from `issued`, signature excluded. */
export function differingFields(issued: RpcUserOp, given: RpcUserOp): string[] {
  return SIGNED_FIELDS.filter((field) => normalized(field, issued[field]) !== normalized(field, given[field]));
}

export type SignatureCheck = "owner" | "other" | "malformed";

/** The owner signs `userOpHash` as an EIP-191 message; the account also accepts a signature over the raw hash. */
export async function checkOwnerSignature(hash: Hex, signature: Hex, owner: string): Promise<SignatureCheck> {
  const recovered = await Promise.allSettled([
    recoverMessageAddress({ message: { raw: hash }, signature }),
    recoverAddress({ hash, signature }),
  ]);
  const signers = recovered.flatMap((result) => (result.status === "fulfilled" ? [result.value.toLowerCase()] : []));
  if (signers.length === 0) return "malformed";
  return signers.includes(owner.toLowerCase()) ? "owner" : "other";
}
