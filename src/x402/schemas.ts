import { t } from "elysia";

export const X402SupportedResponseSchema = t.Object({
  kinds: t.Array(t.Object({ x402Version: t.Integer(), scheme: t.String(), network: t.String() })),
  extensions: t.Array(t.String()),
  signers: t.Record(t.String(), t.Array(t.String())),
});
