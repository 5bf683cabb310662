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
      extra: t.Optional(t.Record(t.String(), t.Unknown(), { description: "scheme-specific, when a kind needs it" })),
    }),
    { description: "one per x402 version, scheme and network this service settles now" },
  ),
  extensions: t.Array(t.String(), { description: "x402 extensions served (none)" }),
  signers: t.Record(t.String(), t.Array(t.String()), {
    description: "per CAIP-2 family, the addresses that send settlement transactions (the executors)",
  }),
});
