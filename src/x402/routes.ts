import { Elysia } from "elysia";
import type { Networks } from "../chain/networks";
import { supportedKinds } from "./networks";
import { X402SupportedResponseSchema } from "./schemas";

/** x402's discovery endpoint (exempt from the rate limit: clients read it at start). */
export function x402Routes(networks: Networks) {
  return new Elysia({ name: "x402", seed: Math.random() }).get("/supported", () => supportedKinds(networks), {
    response: { 200: X402SupportedResponseSchema },
    detail: {
      tags: ["x402"],
      summary: "x402 kinds this facilitator settles",
      description:
        "Scheme exact on the networks with x402 enabled that settle: an EIP-3009 token, or Permit2 and x402's exact proxy deployed (tokens without EIP-3009); signers are the executors.",
    },
  });
}
