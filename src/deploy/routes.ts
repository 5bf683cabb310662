import {
  ClaimBodySchema,
  ClaimResponseSchema,
  DeploySettleResponseSchema,
  EoaSettleBodySchema,
  EoaVerifyBodySchema,
  EoaVerifyResponseSchema,
  MasterResponseSchema,
  OwnerParamsSchema,
  OwnerQuerySchema,
  QuoteBodySchema,
  QuoteResponseSchema,
  WalletListResponseSchema,
  WalletSettleBodySchema,
  WalletVerifyBodySchema,
  WalletVerifyResponseSchema,
} from "@relay402/client/wire/deploy-schemas";
import { ErrorResponse, PaymentPendingResponse } from "@relay402/client/wire/fields";
import { Elysia } from "elysia";
import type { AdminGuard } from "../http/admin-guard";
import type { Deployments } from "./deployments";

const errors = { 400: ErrorResponse, 404: ErrorResponse, 500: ErrorResponse };
/** Only the admin routes can answer 401. */
const adminErrors = { ...errors, 401: ErrorResponse };
/** A settle whose payment is in flight answers 202. */
const settleErrors = { ...adminErrors, 202: PaymentPendingResponse };
const tags = ["Wallet deployment"];

/** The OpenAPI security requirement of the admin endpoints (scheme declared in http/app.ts). */
const ADMIN_KEY = [{ adminApiKey: [] }];

/** The deployment routes; the four verify/settle endpoints are admin-only (the guard runs before validation). */
export function deployRoutes(deployments: Deployments, guard: AdminGuard) {
  return new Elysia({ name: "deployments", seed: Math.random() })
    .use(guard)
    .post("/deploy/quote", ({ body }) => deployments.quote(body), {
      body: QuoteBodySchema,
      response: { 200: QuoteResponseSchema, ...errors },
      detail: {
        tags,
        summary: "Quote a deployment",
        description: "Wallet addresses, deployment fee, fee recipient and relayer: what a client signs. Public.",
      },
    })
    .post("/deploy/verify", ({ body }) => deployments.verify(body), {
      admin: true,
      body: EoaVerifyBodySchema,
      response: { 200: EoaVerifyResponseSchema, ...adminErrors },
      detail: {
        tags,
        summary: "Verify an EOA-paid deployment",
        security: ADMIN_KEY,
        description:
          "Requires x-admin-api-key. paymentPayload[0] pays the fee; with funding, paymentPayload[i] funds wallet i-1.",
      },
    })
    .post("/deploy/settle", ({ body }) => deployments.settle(body), {
      admin: true,
      body: EoaSettleBodySchema,
      response: { 200: DeploySettleResponseSchema, ...settleErrors },
      detail: {
        tags,
        summary: "Settle an EOA-paid deployment",
        security: ADMIN_KEY,
        description:
          "Requires x-admin-api-key. Fee payment, then deployments, then fundings. Idempotent per fee authorization.",
      },
    })
    .post("/deploy/wallet/verify", ({ body }) => deployments.verifyWallet(body), {
      admin: true,
      body: WalletVerifyBodySchema,
      response: { 200: WalletVerifyResponseSchema, ...adminErrors },
      detail: {
        tags,
        summary: "Verify a smart-wallet-paid deployment",
        security: ADMIN_KEY,
        description: "Requires x-admin-api-key. Builds one sponsored UserOp paying the fee and every funding amount.",
      },
    })
    .post("/deploy/wallet/settle", ({ body }) => deployments.settleWallet(body), {
      admin: true,
      body: WalletSettleBodySchema,
      response: { 200: DeploySettleResponseSchema, ...settleErrors },
      detail: {
        tags,
        summary: "Settle a smart-wallet-paid deployment",
        security: ADMIN_KEY,
        description:
          "Requires x-admin-api-key. Sends the signed UserOp, then deploys the wallets. Idempotent per userOpHash.",
      },
    })
    .post("/wallet/claim", ({ body }) => deployments.claim(body), {
      body: ClaimBodySchema,
      response: { 200: ClaimResponseSchema, ...errors },
      detail: {
        tags,
        summary: "Retry pending deployments and fundings",
        description: "No new fee. By paymentTxHash, payerAddress, or both; optional network.",
      },
    })
    .get("/wallet/:owner", ({ params, query }) => deployments.walletsOf(params.owner, query.network), {
      params: OwnerParamsSchema,
      query: OwnerQuerySchema,
      response: { 200: WalletListResponseSchema, ...errors },
      detail: {
        tags,
        summary: "Wallets of an owner",
        description: "Master and sub wallets with their WalletInfo records; ?network= narrows.",
      },
    })
    .get("/wallet/:owner/master", ({ params }) => deployments.master(params.owner), {
      params: OwnerParamsSchema,
      response: { 200: MasterResponseSchema, ...errors },
      detail: {
        tags,
        summary: "Master wallet of an owner",
        description: "Computed address and salt, with the record per network (null when not deployed).",
      },
    });
}
