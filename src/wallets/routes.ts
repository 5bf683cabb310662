import { ErrorResponse } from "@relay402/client/wire/fields";
import {
  WalletPaymentSettleResponseSchema,
  WalletPaymentVerifyBodySchema,
  WalletPaymentVerifyResponseSchema,
} from "@relay402/client/wire/wallet-schemas";
import { Elysia } from "elysia";
import { userOpSettleRoute } from "../userops/settle-route";
import type { WalletPayments } from "./wallet-payments";

export function walletRoutes(wallets: WalletPayments) {
  return new Elysia({ name: "wallet-payments", seed: Math.random() })
    .post("/wallet/verify", ({ body }) => wallets.verify(body.paymentRequirements.network, body), {
      body: WalletPaymentVerifyBodySchema,
      response: { 200: WalletPaymentVerifyResponseSchema, 400: ErrorResponse, 500: ErrorResponse },
      detail: {
        tags: ["Smart wallet payments"],
        summary: "Build the unsigned, paymaster-sponsored UserOp of a smart-wallet payment",
        description:
          "Up to 20 transfers in one token, plus the facilitator fee, as one ERC-7579 batch. The owner signs `userOpHash` (EIP-191 or raw) and sends the UserOp back to /wallet/settle before the paymaster data expires.",
      },
    })
    .use(
      userOpSettleRoute("/wallet/settle", wallets.settle, {
        response: WalletPaymentSettleResponseSchema,
        tag: "Smart wallet payments",
        summary: "Send a signed UserOp from /wallet/verify to the bundler and report the transfers",
        description:
          "Only a UserOp issued by /wallet/verify, unchanged but for `signature`. Idempotent: a UserOp already sent answers with its first result.",
      }),
    );
}
