import { PaymentIdField } from "@relay402/client/wire/fields";
import { Type as t } from "@sinclair/typebox";
import { NETWORK_PRESETS } from "../networks";
import { X402_REASONS } from "./reasons";

const CAIP2_IDS = NETWORK_PRESETS.map((preset) => `${preset.x402.caip2} (${preset.name})`).join(", ");
const V1_NAMES = NETWORK_PRESETS.flatMap((preset) => preset.x402.v1Name ?? []).join(", ");

/**
 * x402's request and answer shapes (as @x402/core 2.x and the v1 packages send and read them), for the OpenAPI
 * document only. They validate nothing on the wire: an x402 body is read by wire.ts, whose every refusal must be
 * an x402 answer (200), never a schema's 400, and the interface's own body keeps its own schema and errors.
 */

const Address = t.String({ pattern: "^0x[0-9a-fA-F]{40}$" });
const Hex = t.String({ pattern: "^0x[0-9a-fA-F]*$" });
const Uint = t.String({ pattern: "^[0-9]+$", description: "decimal, in the token's smallest unit or unix seconds" });
const Extra = t.Record(t.String(), t.Unknown());

/** `exact` with EIP-3009: the token's own transferWithAuthorization (base). */
const Eip3009Payload = t.Object({
  signature: Hex,
  authorization: t.Object({
    from: Address,
    to: Address,
    value: Uint,
    validAfter: Uint,
    validBefore: Uint,
    nonce: t.String({ pattern: "^0x[0-9a-fA-F]{64}$" }),
  }),
});

/** `exact` with Permit2 through x402's x402ExactPermit2Proxy (a token without EIP-3009; v2 only). */
const Permit2Payload = t.Object({
  signature: Hex,
  permit2Authorization: t.Object({
    from: Address,
    permitted: t.Object({ token: Address, amount: Uint }),
    spender: Address,
    nonce: Uint,
    deadline: Uint,
    witness: t.Object({ to: Address, validAfter: Uint }),
  }),
});

const RequirementsV2 = t.Object({
  scheme: t.Literal("exact"),
  network: t.String({ description: `CAIP-2: ${CAIP2_IDS}` }),
  asset: Address,
  amount: Uint,
  payTo: Address,
  maxTimeoutSeconds: t.Integer({ minimum: 0 }),
  extra: t.Optional(Extra),
});

export const X402V2BodySchema = t.Object(
  {
    x402Version: t.Literal(2),
    paymentPayload: t.Object({
      x402Version: t.Literal(2),
      resource: t.Optional(t.Object({ url: t.String(), description: t.String(), mimeType: t.String() })),
      accepted: RequirementsV2,
      payload: t.Union([Eip3009Payload, Permit2Payload]),
      extensions: t.Optional(
        t.Record(t.String(), t.Unknown(), {
          description:
            "x402 extensions; relay402 performs eip2612GasSponsoring (info: from, asset, spender Permit2, amount, nonce, deadline, signature: the payer's EIP-2612 permit to Permit2, sent with a Permit2 payment whose payer has no allowance yet)",
        }),
      ),
    }),
    paymentRequirements: RequirementsV2,
  },
  { title: "x402 v2 body", description: "What @x402/core's HTTPFacilitatorClient sends (x402Version 2)." },
);

const RequirementsV1 = t.Object({
  scheme: t.Literal("exact"),
  network: t.String({ description: `x402 v1 network name: ${V1_NAMES}` }),
  maxAmountRequired: Uint,
  resource: t.String(),
  description: t.String(),
  mimeType: t.String(),
  outputSchema: t.Optional(Extra),
  payTo: Address,
  maxTimeoutSeconds: t.Integer({ minimum: 0 }),
  asset: Address,
  extra: t.Optional(Extra),
});

export const X402V1BodySchema = t.Object(
  {
    x402Version: t.Literal(1),
    paymentPayload: t.Object({
      x402Version: t.Literal(1),
      scheme: t.Literal("exact"),
      network: t.String(),
      payload: Eip3009Payload,
    }),
    paymentRequirements: RequirementsV1,
  },
  { title: "x402 v1 body", description: "What the legacy x402 packages send (x402Version 1, EIP-3009 only)." },
);

/** Every reason code an x402 answer carries: the values of the one table in reasons.ts. */
const Reason = t.Union(
  [...new Set(Object.values(X402_REASONS))].map((code) => t.Literal(code)),
  { description: "x402 reason code (docs/errors.md, x402 section)" },
);

export const X402VerifyResponseSchema = t.Object(
  {
    isValid: t.Boolean(),
    invalidReason: t.Optional(Reason),
    invalidMessage: t.Optional(t.String()),
    payer: t.Optional(t.String()),
  },
  { title: "x402 verify answer", description: "Always 200 for an x402 body; isValid false names the reason." },
);

export const X402SettleResponseSchema = t.Object(
  {
    success: t.Boolean(),
    errorReason: t.Optional(Reason),
    errorMessage: t.Optional(t.String()),
    payer: t.Optional(t.String()),
    transaction: t.String({ description: "the transaction hash; empty when nothing was sent" }),
    network: t.String({ description: "the network as the body named it" }),
    amount: t.Optional(Uint),
    extra: t.Optional(
      t.Object(
        { paymentId: PaymentIdField },
        { description: "the payment's id (token or Permit2 nonce space), on every answer to a readable payment" },
      ),
    ),
  },
  {
    title: "x402 settle answer",
    description:
      "Always 200 for an x402 body. One payment, one success: a later or concurrent settle of the same authorization answers success false with invalid_exact_evm_nonce_already_used, except after settlement_pending, when it returns the final result.",
  },
);
