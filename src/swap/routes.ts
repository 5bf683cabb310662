import { Elysia } from "elysia";
import { ErrorResponse } from "../fields";
import {
  SwapBodySchema,
  SwapQuoteBodySchema,
  SwapQuoteResponseSchema,
  SwapSettleResponseSchema,
  SwapVerifyResponseSchema,
} from "./schemas";
import type { Swaps } from "./swaps";

/** EOA swaps (decisions.md "Swaps"): quote, then verify and settle the payer's SwapWithAuthorization. */
export function swapRoutes(swaps: Swaps) {
  return new Elysia({ name: "swaps", seed: Math.random() })
    .post("/swap/quote", ({ body }) => swaps.quote(body), {
      body: SwapQuoteBodySchema,
      response: { 200: SwapQuoteResponseSchema, 400: ErrorResponse, 500: ErrorResponse },
      detail: {
        tags: ["Swaps"],
        summary: "Quote an exact-in swap on the whitelisted DEX routers",
        description:
          "Public, writes nothing. Quotes direct and two-hop routes (V2 from reserves, V3 through QuoterV2, all in one Multicall3 eth_call) for sellAmount minus the swap fee and answers the best one with minBuyAmount = floor(buyAmount × (10000 − slippageBps) / 10000). mode eoa (with from) adds the ready-to-sign SwapWithAuthorization typed data.",
      },
    })
    .post("/swap/verify", ({ body }) => swaps.verify(body), {
      body: SwapBodySchema,
      response: { 200: SwapVerifyResponseSchema, 400: ErrorResponse, 500: ErrorResponse },
      detail: {
        tags: ["Swaps"],
        summary: "Verify a signed SwapWithAuthorization",
        description:
          'Checks the relayer, the sell token, the signature, the validity window and the fee against the rule, then simulates the settlement (swapWithAuthorization on the best route now) in one eth_call and reports buyAmount. A swap that fails a check, or whose route can no longer pay minBuyAmount ("price moved below minBuyAmount"), is 200 with isValid false.',
      },
    })
    .post("/swap/settle", ({ body }) => swaps.settle(body), {
      body: SwapBodySchema,
      response: { 200: SwapSettleResponseSchema, 400: ErrorResponse, 500: ErrorResponse },
      detail: {
        tags: ["Swaps"],
        summary: "Settle a signed SwapWithAuthorization on-chain",
        description:
          "Re-runs every check of /swap/verify (a failed one is a 400), then sends swapWithAuthorization on the route the service finds best; the signed minBuyAmount is the floor the relayer enforces at the recipient. Idempotent per (network, from, nonce).",
      },
    });
}
