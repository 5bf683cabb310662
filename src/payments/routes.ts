import { Elysia } from "elysia";
import { ErrorResponse } from "../http/schemas";
import type { Services } from "../services";
import { parseAuthorization } from "./authorization";
import { PaymentBodySchema, SettleResponseSchema, VerifyResponseSchema } from "./schemas";
import { verifyPayment } from "./verify-payment";

export function paymentRoutes(services: Services) {
  return new Elysia({ name: "payments", seed: Math.random() })
    .post(
      "/verify",
      async ({ body }) => {
        const network = services.networks.get(body.paymentRequirements.network);
        const authorization = parseAuthorization(body.paymentPayload);
        return verifyPayment(
          {
            relayer: services.relayerFor(network),
            relayerAddress: network.config.contracts.relayer as `0x${string}`,
            now: services.now,
            rules: services.paymentRulesFor(network),
          },
          authorization,
          body.paymentRequirements.relayerContract,
        );
      },
      {
        body: PaymentBodySchema,
        response: { 200: VerifyResponseSchema, 400: ErrorResponse, 500: ErrorResponse },
        detail: {
          tags: ["EOA payments"],
          summary: "Verify a signed TransferWithAuthorization",
          description: "Runs the five checks in order; a payment that fails a check is 200 with isValid false.",
        },
      },
    )
    .post(
      "/settle",
      async ({ body }) => {
        const network = services.networks.get(body.paymentRequirements.network);
        const authorization = parseAuthorization(body.paymentPayload);
        return services.settler.settle(network, authorization, body.paymentRequirements.relayerContract);
      },
      {
        body: PaymentBodySchema,
        response: { 200: SettleResponseSchema, 400: ErrorResponse, 500: ErrorResponse },
        detail: {
          tags: ["EOA payments"],
          summary: "Settle a signed TransferWithAuthorization on-chain",
          description: "Re-runs every check, then calls the relayer. Idempotent per (network, from, nonce).",
        },
      },
    );
}
