import { Type, Type as t } from "@sinclair/typebox";
import { NETWORKS } from "./networks.js";

/** Shared field shapes: a wrong one is a 400 `validation_error` that names the field. */
export const AddressField = t.String({ pattern: "^0x[0-9a-fA-F]{40}$", description: "20-byte hex address" });
export const Bytes32Field = t.String({ pattern: "^0x[0-9a-fA-F]{64}$", description: "32-byte hex string" });
export const UintString = t.String({
  pattern: "^[0-9]{1,78}$",
  description: "decimal uint256 in the token's smallest unit",
});
/**
 * An integer of relay402's own bodies that must arrive as a JSON number (decisions.md: `validAfter` and
 * `validBefore` are numbers). Elysia's `t.Integer` also accepts a numeric string and converts it, so `"0"` would
 * pass: TypeBox's own integer refuses it as a wrong type. x402 bodies keep x402's string encodings.
 */
export const JsonInteger = (options: Parameters<typeof Type.Integer>[0] = {}) => Type.Integer(options);
export const UnixTimeField = JsonInteger({ minimum: 0, maximum: 2 ** 53 - 1, description: "unix seconds" });
/**
 * A network name of wire/networks.ts (the service's presets), an enum in OpenAPI; a name outside the list is refused naming the
 * allowed values, a listed one the service has not configured answers `network not enabled`.
 */
export const NetworkField = t.Union(NETWORKS.map((name) => t.Literal(name)));

export const ErrorResponse = t.Object(
  {
    code: t.String(),
    message: t.String(),
    doc_url: t.String(),
    details: t.Optional(t.Record(t.String(), t.Unknown())),
  },
  { description: "Error envelope" },
);

/**
 * A payment's handle, the same on every instance and retry: `keccak256(abi.encode(uint256 chainId, address contract,
 * address payer, uint256 nonce))` for a signed authorization (wire/payment-id.ts), the `userOpHash` for a UserOp.
 */
export const PaymentIdField = t.String({
  pattern: "^0x[0-9a-fA-F]{64}$",
  description: "the payment's id: paymentIdOf(chainId, contract, payer, nonce), or the userOpHash of a UserOp flow",
});

/**
 * The 202 answer of a settle whose payment is in flight (sent, no receipt yet, or being settled by another request):
 * not an error. `Retry-After` says when to settle the same body again; `Location` is `/payments/{paymentId}`.
 */
export const PaymentPendingResponse = t.Object(
  {
    success: t.Literal(false),
    status: t.Literal("pending"),
    paymentId: PaymentIdField,
    network: t.String(),
    payer: t.String(),
    transaction: t.Optional(t.String()),
    message: t.String(),
  },
  { description: "Payment in flight: settle the same body again after Retry-After, or look it up at Location" },
);
