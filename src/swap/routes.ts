import { ErrorResponse, PaymentPendingResponse } from "@relay402/client/wire/fields";
import {
  SwapBodySchema,
  SwapQuoteBodySchema,
  SwapQuoteResponseSchema,
  SwapSettleResponseSchema,
  SwapVerifyResponseSchema,
  WalletSwapSettleResponseSchema,
  WalletSwapVerifyBodySchema,
  WalletSwapVerifyResponseSchema,
} from "@relay402/client/wire/swap/schemas";
import { Elysia } from "elysia";
import { userOpSettleRoute } from "../userops/settle-route";
import type { Swaps } from "./swaps";

/**
 * Swaps (decisions.md "Swaps"): quote; EOA swaps verify and settle the payer's SwapWithAuthorization, smart-wallet
 * swaps are a sponsored UserOp (approve + Relayer.swapBatch) the owner signs.
 */
export function swapRoutes(swaps: Swaps) {
  return new Elysia({ name: "swaps", seed: Math.random() })
    .post("/swap/quote", ({ body }) => swaps.quote(body), {
      body: SwapQuoteBodySchema,
      response: { 200: SwapQuoteResponseSchema, 400: ErrorResponse, 500: ErrorResponse },
      detail: {
        tags: ["Swaps"],
        summary: "Quote an exact-in swap on the whitelisted DEX routers",
        description:
          "Public, writes nothing. Quotes direct and two-hop routes (V2 from reserves, V3 through QuoterV2, all in one Multicall3 eth_call) for sellAmount minus the swap fee and answers the best one with minBuyAmount = floor(buyAmount × (10000 − slippageBps) / 10000), its router and packed path. mode eoa (with from) adds the ready-to-sign SwapWithAuthorization typed data, which binds that route (router, routeHash = keccak256(path)).",
      },
    })
    .post("/swap/verify", ({ body }) => swaps.verify(body), {
      body: SwapBodySchema,
      response: { 200: SwapVerifyResponseSchema, 400: ErrorResponse, 500: ErrorResponse },
      detail: {
        tags: ["Swaps"],
        summary: "Verify a signed SwapWithAuthorization",
        description:
          'Checks the relayer, the sell token, the signature, the validity window and the fee against the rule, then simulates the settlement (swapWithAuthorization on the signed route: swapPayload.path, whose keccak256 must be the signed routeHash) in one eth_call and reports buyAmount. A swap that fails a check, or whose route can no longer pay minBuyAmount ("price moved below minBuyAmount"), is 200 with isValid false.',
      },
    })
    .post("/swap/settle", ({ body }) => swaps.settle(body), {
      body: SwapBodySchema,
      response: { 200: SwapSettleResponseSchema, 202: PaymentPendingResponse, 400: ErrorResponse, 500: ErrorResponse },
      detail: {
        tags: ["Swaps"],
        summary: "Settle a signed SwapWithAuthorization on-chain",
        description:
          "Re-runs every check of /swap/verify (a failed one is a 400), then sends swapWithAuthorization on the signed route (the relayer refuses any other); the signed minBuyAmount is the floor the relayer enforces at the recipient. Idempotent per (network, from, nonce); a nonce the chain shows used by another transaction is a success only if that transaction executed this very authorization (the struct hash in SwapExecuted), else 400 nonce_error.",
      },
    })
    .post("/wallet/swap/verify", ({ body }) => swaps.walletVerify(body.paymentRequirements.network, body), {
      body: WalletSwapVerifyBodySchema,
      response: { 200: WalletSwapVerifyResponseSchema, 400: ErrorResponse, 500: ErrorResponse },
      detail: {
        tags: ["Swaps"],
        summary: "Build the unsigned, sponsored UserOp of a smart wallet's swap",
        description:
          'Quotes the best route for sellAmount minus the swap fee, checks the wallet (deployed by the factory, holding sellAmount), builds the batch approve(relayer, sellAmount) + Relayer.swapBatch(order, route) with minBuyAmount and the recipient in the order, simulates it as the EntryPoint runs it, and has the paymaster sign. The owner signs userOpHash and sends the UserOp to /wallet/swap/settle before the paymaster data expires. A route that can no longer pay minBuyAmount is 200 isValid false ("price moved below minBuyAmount"), with nothing issued.',
      },
    })
    .use(
      userOpSettleRoute("/wallet/swap/settle", swaps.walletSettle, {
        response: WalletSwapSettleResponseSchema,
        tag: "Swaps",
        summary: "Send a signed UserOp from /wallet/swap/verify and report the swap the relayer executed",
        description:
          'As /wallet/settle: only a UserOp issued by /wallet/swap/verify, unchanged but for `signature`, sent at most once (a repeat answers the first result). Before the first send the batch is simulated again: a price that can no longer pay minBuyAmount is 400 payment_verification_error ("price moved below minBuyAmount") and nothing is sent. `swap` is the relayer\'s SwapExecuted event of this UserOp.',
      }),
    );
}
