import type { Static } from "elysia";
import type { Address, Hex } from "viem";
import { ApiError } from "../errors";
import type { RpcUserOp } from "../userops/user-operation";
import type { IncognitoDataSchema } from "./schemas";

export type IncognitoData = Static<typeof IncognitoDataSchema>;
export type IncognitoRequest = { walletAddress: string; incognitoData: IncognitoData };

export type IncognitoVerifyResponse = {
  isValid: true;
  payer: Address;
  userOp: RpcUserOp;
  userOpHash: Hex;
  feeAmount: string;
  totalAmount: string;
};

/** A refusal naming the `incognitoData` field at fault. */
export const invalid = (field: string, message: string, details: Record<string, unknown> = {}) =>
  new ApiError("validation_error", `incognitoData.${field}: ${message}`, {
    field: `incognitoData.${field}`,
    ...details,
  });

/** A field the operation's type needs (the schema has them all optional: one flat object for both types). */
export function required<K extends keyof IncognitoData>(data: IncognitoData, field: K): NonNullable<IncognitoData[K]> {
  const value = data[field];
  if (value === undefined || value === null) throw invalid(String(field), `required for type "${data.type}"`);
  return value as NonNullable<IncognitoData[K]>;
}
