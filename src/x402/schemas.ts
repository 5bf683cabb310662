import { Type as t } from "@sinclair/typebox";
import { NETWORK_PRESETS } from "../networks";

const KIND_NETWORKS =
  `v2: CAIP-2 (${NETWORK_PRESETS.map((preset) => preset.x402.caip2).join(", ")}); ` +
  `v1: its name (${NETWORK_PRESETS.flatMap((preset) => preset.x402.v1Name ?? []).join(", ")})`;

export const X402SupportedResponseSchema = t.Object({
  kinds: t.Array(
    t.Object({
      x402Version: t.Integer({ description: "1 or 2" }),
      scheme: t.String({ description: "exact" }),
      network: t.String({ description: KIND_NETWORKS }),
      extra: t.Optional(
        t.Object(
          {
            assets: t.Array(
              t.Object({
                asset: t.String({ description: "the token's address" }),
                symbol: t.String(),
                decimals: t.Integer(),
                name: t.Union([t.String(), t.Null()], { description: "the token's EIP-712 name, read at start" }),
                version: t.Union([t.String(), t.Null()], { description: "the token's EIP-712 version, read at start" }),
                assetTransferMethod: t.Union([t.Literal("eip3009"), t.Literal("permit2")]),
              }),
            ),
          },
          {
            description:
              "the tokens this kind settles: what a merchant puts in paymentRequirements (extra.name, extra.version)",
          },
        ),
      ),
    }),
    { description: "one per x402 version, scheme and network this service settles now" },
  ),
  extensions: t.Array(t.String(), {
    description:
      "x402 extensions performed: eip2612GasSponsoring where a token paid through Permit2 has EIP-2612 permit (the payer's permit to Permit2 is submitted with the settlement), erc20ApprovalGasSponsoring where a network funds approves (the payer's signed approve is funded and broadcast before the settlement), payment-identifier wherever x402 settles (a settle retried under the same id and body answers its first result; the same id with another body of its payer is 409)",
  }),
  signers: t.Record(t.String(), t.Array(t.String()), {
    description: "per CAIP-2 family, the addresses that send settlement transactions (the executors)",
  }),
});
