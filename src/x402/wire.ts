import type { Eip2612Permit } from "@relay402/client/wire/eip2612-permit";
import { type Address, getAddress, type Hex, isAddress, isHex, maxUint256 } from "viem";
import type { Authorization } from "../settlement/authorization";
import { readEip2612Sponsoring } from "./eip2612-sponsoring";
import { isObject, type Json } from "./extensions";
import type { X402Refusal } from "./reasons";

/** An x402 request body: `x402Version` at the top level is what tells it from the interface's own. */
export type X402Body = { x402Version: number; paymentPayload: unknown; paymentRequirements: unknown };

export const isX402Body = (body: unknown): body is X402Body =>
  typeof body === "object" && body !== null && typeof (body as { x402Version?: unknown }).x402Version === "number";

type Common = {
  version: 1 | 2;
  /** The network as the body names it (`eip155:8453` in v2, `base` in v1). */
  wireNetwork: string;
  /** What the merchant asked for. */
  requirements: { asset: Address; payTo: Address; amount: bigint; domain: { name: string; version: string } | null };
};

/** An `exact` EIP-3009 payment as both x402 versions carry it; `token` is the requirements' asset. */
export type X402Eip3009Payment = Common & { method: "eip3009"; authorization: Authorization };

/** A Permit2 PermitWitnessTransferFrom as @x402/evm signs it: x402's proxy is the spender, the witness the recipient. */
export type Permit2Transfer = {
  from: Address;
  token: Address;
  amount: bigint;
  spender: Address;
  nonce: bigint;
  deadline: bigint;
  to: Address;
  validAfter: bigint;
  signature: Hex;
};
export type X402Permit2Payment = Common & {
  method: "permit2";
  permit: Permit2Transfer;
  /** x402 v2's eip2612GasSponsoring: the payer's EIP-2612 permit to Permit2, submitted with the settlement. */
  eip2612?: Eip2612Permit;
};

/** An `exact` payment in relay402's types: EIP-3009 on the token itself, or Permit2 through x402's proxy. */
export type X402Payment = X402Eip3009Payment | X402Permit2Payment;

/** The signer of a payment. */
export const payerOf = (payment: X402Payment): Address =>
  payment.method === "eip3009" ? payment.authorization.from : payment.permit.from;

export type Parsed = { ok: true; payment: X402Payment } | { ok: false; refusal: X402Refusal; message: string };

const fail = (refusal: X402Refusal, message: string): Parsed => ({ ok: false, refusal, message });
const MAX_SIGNATURE_BYTES = 4096;

function uint(value: unknown): bigint | null {
  const text = typeof value === "number" && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== "string" || !/^[0-9]{1,78}$/.test(text)) return null;
  const n = BigInt(text);
  return n <= maxUint256 ? n : null;
}

/** Reads a v1 or v2 body; every shape error is a refusal (x402 answers are 200s), never an exception. */
export function parseX402Body(body: X402Body): Parsed {
  const version = body.x402Version;
  if (version !== 1 && version !== 2) return fail("version", `x402Version ${version} is not supported (1 or 2)`);
  const { paymentPayload: payload, paymentRequirements: req } = body;
  if (!isObject(payload) || !isObject(req))
    return fail("malformed", "paymentPayload and paymentRequirements are objects");
  const payloadScheme =
    version === 2 ? (isObject(payload.accepted) ? payload.accepted.scheme : undefined) : payload.scheme;
  if (req.scheme !== "exact" || payloadScheme !== "exact") return fail("scheme", "only scheme exact is supported");
  const payloadNetwork =
    version === 2 ? (isObject(payload.accepted) ? payload.accepted.network : undefined) : payload.network;
  if (typeof req.network !== "string") return fail("malformed", "paymentRequirements.network is missing");
  if (payloadNetwork !== req.network)
    return fail("networkMismatch", "the payload and the requirements name different networks");

  const amount = uint(version === 2 ? req.amount : req.maxAmountRequired);
  const asset = req.asset;
  const payTo = req.payTo;
  if (
    amount === null ||
    typeof asset !== "string" ||
    !isAddress(asset) ||
    typeof payTo !== "string" ||
    !isAddress(payTo)
  )
    return fail("malformed", "paymentRequirements needs asset, payTo and the amount");
  const extra = isObject(req.extra) ? req.extra : {};
  const domain =
    typeof extra.name === "string" && typeof extra.version === "string"
      ? { name: extra.name, version: extra.version }
      : null;

  const inner = payload.payload;
  const signature = isObject(inner) ? inner.signature : undefined;
  const common = {
    version,
    wireNetwork: req.network,
    requirements: { asset: getAddress(asset), payTo: getAddress(payTo), amount, domain },
  } as const;
  if (isObject(inner) && isObject(inner.permit2Authorization)) {
    const permit = parsePermit2(inner.permit2Authorization, signature);
    if (!permit.ok) return permit;
    // Extensions are v2's; a v1 payload has none.
    const sponsoring = version === 2 ? readEip2612Sponsoring(payload.extensions) : { ok: true as const, permit: null };
    if (!sponsoring.ok) return sponsoring;
    const eip2612 = sponsoring.permit ? { eip2612: sponsoring.permit } : {};
    return { ok: true, payment: { ...common, method: "permit2", permit: permit.value, ...eip2612 } };
  }
  const auth = isObject(inner) ? inner.authorization : undefined;
  if (!isObject(auth))
    return fail("malformed", "paymentPayload.payload needs an EIP-3009 authorization or a permit2Authorization");
  const value = uint(auth.value);
  const validAfter = uint(auth.validAfter);
  const validBefore = uint(auth.validBefore);
  const { from, to, nonce } = auth;
  if (
    value === null ||
    validAfter === null ||
    validBefore === null ||
    !isAddressString(from) ||
    !isAddressString(to) ||
    typeof nonce !== "string" ||
    !/^0x[0-9a-fA-F]{64}$/.test(nonce)
  )
    return fail("malformed", "the authorization's fields are not well-formed");
  if (!isSignature(signature)) return fail("malformedSignature", "the signature is not well-formed hex");

  return {
    ok: true,
    payment: {
      ...common,
      method: "eip3009",
      authorization: {
        token: getAddress(asset),
        from: getAddress(from),
        to: getAddress(to),
        value,
        validAfter,
        validBefore,
        nonce: nonce.toLowerCase() as Hex,
        signature: signature.toLowerCase() as Hex,
      },
    },
  };
}

const isAddressString = (value: unknown): value is string => typeof value === "string" && isAddress(value);

const isSignature = (value: unknown): value is Hex =>
  typeof value === "string" &&
  isHex(value, { strict: true }) &&
  value.length % 2 === 0 &&
  value.length >= 4 &&
  (value.length - 2) / 2 <= MAX_SIGNATURE_BYTES;

/** `permit2Authorization` as @x402/evm sends it: numbers as decimal strings, addresses checksummed or not. */
function parsePermit2(
  auth: Json,
  signature: unknown,
): { ok: true; value: Permit2Transfer } | { ok: false; refusal: X402Refusal; message: string } {
  const permitted = isObject(auth.permitted) ? auth.permitted : {};
  const witness = isObject(auth.witness) ? auth.witness : {};
  const amount = uint(permitted.amount);
  const nonce = uint(auth.nonce);
  const deadline = uint(auth.deadline);
  const validAfter = uint(witness.validAfter);
  const { from, spender } = auth;
  if (
    amount === null ||
    nonce === null ||
    deadline === null ||
    validAfter === null ||
    !isAddressString(from) ||
    !isAddressString(spender) ||
    !isAddressString(permitted.token) ||
    !isAddressString(witness.to)
  )
    return { ok: false, refusal: "malformed", message: "the permit2Authorization's fields are not well-formed" };
  if (!isSignature(signature))
    return { ok: false, refusal: "malformedSignature", message: "the signature is not well-formed hex" };
  return {
    ok: true,
    value: {
      from: getAddress(from),
      token: getAddress(permitted.token),
      amount,
      spender: getAddress(spender),
      nonce,
      deadline,
      to: getAddress(witness.to),
      validAfter,
      signature: signature.toLowerCase() as Hex,
    },
  };
}
