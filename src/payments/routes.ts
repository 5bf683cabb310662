import { Elysia } from "elysia";
import { ErrorResponse } from "../fields";
import type { Payments } from "./payments";
import { PaymentBodySchema, PaymentSettleResponseSchema, PaymentVerifyResponseSchema } from "./schemas";

export function paymentRoutes(payments: Payments) {
  return new Elysia({ name: "payments", seed: Math.random() })
    .post("/verify", ({ body }) => payments.verify(body), {
      body: PaymentBodySchema,
      response: { 200: PaymentVerifyResponseSchema, 400: ErrorResponse, 500: ErrorResponse },
      detail: {
        tags: ["EOA payments"],
        summary: "Verify a signed TransferWithAuthorization",
        description: "Runs the five checks in order; a payment that fails a check is 200 with isValid false.",
      },
    })
    .post("/settle", ({ body }) => payments.settle(body), {
      body: PaymentBodySchema,
      response: { 200: PaymentSettleResponseSchema, 400: ErrorResponse, 500: ErrorResponse },
      detail: {
        tags: ["EOA payments"],
        summary: "Settle a signed TransferWithAuthorization on-chain",
        description: "Re-runs every check, then calls the relayer. Idempotent per (network, from, nonce).",
      },
    });
}
