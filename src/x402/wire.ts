import { type Address, getAddress, type Hex, isAddress, isHex, maxUint256 } from "viem";
import type { Authorization } from "../payments/authorization";
import type { X402Refusal } from "./reasons";

/** An x402 request body: `x402Version` at the top level is what tells it from the interface's own. */
export type X402Body = { x402Version: number; paymentPayload: unknown; paymentRequirements: unknown };

export const isX402Body = (body: unknown): body is X402Body =>
  typeof body === "object" && body !== null && typeof (body as { x402Version?: unknown }).x402Version === "number";

/** An `exact` EIP-3009 payment as both x402 versions carry it, in relay402's types. */
export type X402Payment = {
  version: 1 | 2;
  /** The network as the body names it (`eip155:8453` in v2, `base` in v1). */
  wireNetwork: string;
  /** What the merchant asked for. */
  requirements: { asset: Address; payTo: Address; amount: bigint; domain: { name: string; version: string } | null };
  /** The signed transfer; `token` is the requirements' asset (EIP-3009 is on the token itself). */
  authorization: Authorization;
};

export type Parsed = { ok: true; payment: X402Payment } | { ok: false; refusal: X402Refusal; message: string };

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null;
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
  const auth = isObject(inner) ? inner.authorization : undefined;
  const signature = isObject(inner) ? inner.signature : undefined;
  if (!isObject(auth))
    return fail("malformed", "paymentPayload.payload.authorization is missing (only EIP-3009 is served)");
  const value = uint(auth.value);
  const validAfter = uint(auth.validAfter);
  const validBefore = uint(auth.validBefore);
  const { from, to, nonce } = auth;
  if (
    value === null ||
    validAfter === null ||
    validBefore === null ||
    typeof from !== "string" ||
    !isAddress(from) ||
    typeof to !== "string" ||
    !isAddress(to) ||
    typeof nonce !== "string" ||
    !/^0x[0-9a-fA-F]{64}$/.test(nonce)
  )
    return fail("malformed", "the authorization's fields are not well-formed");
  if (
    typeof signature !== "string" ||
    !isHex(signature, { strict: true }) ||
    signature.length % 2 !== 0 ||
    signature.length < 4 ||
    (signature.length - 2) / 2 > MAX_SIGNATURE_BYTES
  )
    return fail("malformedSignature", "the signature is not well-formed hex");

  return {
    ok: true,
    payment: {
      version,
      wireNetwork: req.network,
      requirements: { asset: getAddress(asset), payTo: getAddress(payTo), amount, domain },
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
