import { ErrorResponse, PaymentPendingResponse } from "@relay402/client/wire/fields";
import {
  PaymentBodySchema,
  PaymentSettleResponseSchema,
  PaymentVerifyResponseSchema,
} from "@relay402/client/wire/payment-schemas";
import { Elysia } from "elysia";
import type { BodyReader } from "../flow";
import type { Payments } from "./payments";

/**
 * A body another flow reads (x402's, with a top-level numeric x402Version) is answered by that flow before the
 * interface's schema sees it, in its shapes and 200 (x402 clients throw on any other status), unless the reader
 * says otherwise (x402's payment-identifier conflict is 409, as that extension asks).
 */
export function paymentRoutes(payments: Payments, readers: readonly BodyReader[]) {
  const readerOf = (path: string, body: unknown) =>
    readers.find((reader) => reader.paths.includes(path) && reader.matches(body));
  return new Elysia({ name: "payments", seed: Math.random() })
    .post("/verify", ({ body }) => payments.verify(body), {
      body: PaymentBodySchema,
      transform: async ({ body, status }) => {
        // Elysia ends the request with a status() a transform returns (its types only allow void).
        const reader = readerOf("/verify", body);
        if (!reader) return;
        const answer = await reader.verify(body);
        return status((reader.statusOf?.(answer) ?? 200) as 200, answer as never) as never;
      },
      response: { 200: PaymentVerifyResponseSchema, 400: ErrorResponse, 500: ErrorResponse },
      detail: {
        tags: ["EOA payments"],
        summary: "Verify a signed TransferWithAuthorization",
        description:
          "Checks that relayerContract is this network's relayer, then the interface's five checks in order, then the service's rules; a payment that fails one is 200 with isValid false and a message saying how to fix it.",
      },
    })
    .post("/settle", ({ body }) => payments.settle(body), {
      body: PaymentBodySchema,
      transform: async ({ body, status }) => {
        const reader = readerOf("/settle", body);
        if (!reader) return;
        const answer = await reader.settle(body);
        return status((reader.statusOf?.(answer) ?? 200) as 200, answer as never) as never;
      },
      response: {
        200: PaymentSettleResponseSchema,
        202: PaymentPendingResponse,
        400: ErrorResponse,
        500: ErrorResponse,
      },
      detail: {
        tags: ["EOA payments"],
        summary: "Settle a signed TransferWithAuthorization on-chain",
        description:
          "Re-runs every check (a failed one is a 400 whose details name what to fix: spender and amounts, the expected EIP-712 domain), then calls the relayer. Idempotent per (network, from, nonce).",
      },
    });
}
