import { Elysia } from "elysia";
import { ErrorResponse } from "../fields";
import { SwapQuoteBodySchema, SwapQuoteResponseSchema } from "./schemas";
import type { Swaps } from "./swaps";

/** EOA swaps (decisions.md "Swaps"): quote, then verify and settle the payer's SwapWithAuthorization. */
export function swapRoutes(swaps: Swaps) {
  return new Elysia({ name: "swaps", seed: Math.random() }).post("/swap/quote", ({ body }) => swaps.quote(body), {
    body: SwapQuoteBodySchema,
    response: { 200: SwapQuoteResponseSchema, 400: ErrorResponse, 500: ErrorResponse },
    detail: {
      tags: ["Swaps"],
      summary: "Quote an exact-in swap on the whitelisted DEX routers",
      description:
        "Public, writes nothing. Quotes direct and two-hop routes (V2 from reserves, V3 through QuoterV2, all in one Multicall3 eth_call) for sellAmount minus the swap fee and answers the best one with minBuyAmount = floor(buyAmount × (10000 − slippageBps) / 10000). mode eoa (with from) adds the ready-to-sign SwapWithAuthorization typed data.",
    },
  });
}
