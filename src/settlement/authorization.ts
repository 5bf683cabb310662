import { type Address, getAddress, type Hex, isHex, maxUint256 } from "viem";
import { ApiError } from "../errors";

/** A TransferWithAuthorization as the relayer checks and executes it. */
export type Authorization = {
  token: Address;
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
  signature: Hex;
};

export type PaymentPayloadBody = {
  token: string;
  payload: {
    authorization: { from: string; to: string; value: string; validAfter: number; validBefore: number; nonce: string };
    signature: string;
  };
};

/** Largest signature accepted (ERC-1271 signers may use long ones; an EOA's is 65 bytes). */
const MAX_SIGNATURE_BYTES = 4096;

/**
 * A signature of a signed body (a payment's, a swap's) as the chain can take it: 0x-prefixed hex, whole bytes, 1 to
 * MAX_SIGNATURE_BYTES of them. Anything else cannot be evaluated: 400 `signature_error` naming `field`.
 */
export function wellFormedSignature(signature: string, field: string): Hex {
  if (
    !isHex(signature, { strict: true }) ||
    signature.length % 2 !== 0 ||
    signature.length < 4 ||
    (signature.length - 2) / 2 > MAX_SIGNATURE_BYTES
  ) {
    throw new ApiError("signature_error", "signature is not a well-formed hex signature", { field });
  }
  return signature;
}

/**
 * Turns a schema-checked payload into typed values. The schema already vetted shapes; what is left is
 * what a pattern cannot say: uint256 range and a well-formed signature (a 400 `signature_error`).
 */
export function parseAuthorization(body: PaymentPayloadBody, field = "paymentPayload"): Authorization {
  const { authorization } = body.payload;
  const value = BigInt(authorization.value);
  if (value > maxUint256) {
    throw new ApiError("validation_error", "value exceeds uint256", { field: `${field}.payload.authorization.value` });
  }
  const signature = wellFormedSignature(body.payload.signature, `${field}.payload.signature`);
  return {
    token: getAddress(body.token),
    from: getAddress(authorization.from),
    to: getAddress(authorization.to),
    value,
    validAfter: BigInt(authorization.validAfter),
    validBefore: BigInt(authorization.validBefore),
    nonce: authorization.nonce.toLowerCase() as Hex,
    signature: signature.toLowerCase() as Hex,
  };
}

/** An authorization as stored with a deployment (amounts and times as decimal strings), and back. */
export const authorizationToJson = (a: Authorization): string =>
  JSON.stringify({
    ...a,
    value: a.value.toString(),
    validAfter: a.validAfter.toString(),
    validBefore: a.validBefore.toString(),
  });

export function authorizationFromJson(json: string): Authorization {
  const raw = JSON.parse(json) as Record<string, string>;
  return {
    ...(raw as unknown as Authorization),
    value: BigInt(raw.value as string),
    validAfter: BigInt(raw.validAfter as string),
    validBefore: BigInt(raw.validBefore as string),
  };
}
