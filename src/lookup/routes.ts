import { ErrorResponse } from "@relay402/client/wire/fields";
import { Elysia } from "elysia";
import { ApiError } from "../errors";
import type { RouteContext } from "../flow";
import { type ListingFilter, MAX_LOOKUP_PAGE, type PaymentLookup } from "./lookup";
import { PaymentIdParams, PaymentListSchema, PaymentRecordSchema, PaymentsQuery, TransactionParams } from "./schemas";

const tags = ["Payments lookup"];
const LISTING_KEYS: Record<string, string[]>[] = [{ adminApiKey: [] }, { merchantApiKey: [] }];

/** A payment's status changes until it concludes: no cache keeps an answer (a listing's also depends on the key). */
const NOT_KEPT = "no-store";

/** The fields that name one payment by its nonce space, as a client's signed body holds them. */
const NONCE_SPACE = ["network", "contract", "payer", "nonce"] as const;

/**
 * GET /payments/{paymentId} and /payments/by-transaction/{hash} (public: the id comes from the signed body and the
 * rest is on-chain), and GET /payments: by nonce space (public, the id's own parts) or a listing, which needs the
 * admin key or a merchant key, shown only the payments to its payTo addresses.
 */
export function lookupRoutes(lookup: PaymentLookup, context: RouteContext) {
  return new Elysia({ name: "payment-lookup", seed: Math.random() })
    .get(
      "/payments/by-transaction/:hash",
      async ({ params, set }) => {
        set.headers["cache-control"] = NOT_KEPT;
        return { payments: await lookup.byTransaction(params.hash), next: null };
      },
      {
        params: TransactionParams,
        response: { 200: PaymentListSchema, 400: ErrorResponse, 429: ErrorResponse },
        detail: {
          tags,
          summary: "The payments one transaction carried (a bundle may carry several UserOps)",
          description:
            "Public. An empty list: no payment of this service was sent in that transaction (or it was released).",
        },
      },
    )
    .get(
      "/payments/:paymentId",
      async ({ params, set }) => {
        set.headers["cache-control"] = NOT_KEPT;
        const record = await lookup.byId(params.paymentId);
        if (!record)
          throw new ApiError(
            "not_found",
            "no payment with this id: never sent, or released (the same signed body may be settled again)",
            { paymentId: params.paymentId },
          );
        return record;
      },
      {
        params: PaymentIdParams,
        response: { 200: PaymentRecordSchema, 400: ErrorResponse, 404: ErrorResponse, 429: ErrorResponse },
        detail: {
          tags,
          summary: "A payment's status and record by its id",
          description:
            "Public. The id is `keccak256(abi.encode(uint256 chainId, address contract, address payer, uint256 nonce))` " +
            "(contract: the relayer for EOA payments and swaps, the token for x402 EIP-3009, Permit2 for x402 Permit2; " +
            "`paymentIdOf` in @relay402/client), or a UserOp's userOpHash. status: pending, settled or failed. 404: never " +
            "sent, or released: the same signed body may be settled again. docs/payment-lookup.md.",
        },
      },
    )
    .get(
      "/payments",
      async ({ query, request, set }) => {
        set.headers["cache-control"] = NOT_KEPT;
        if (query.contract !== undefined || query.nonce !== undefined) {
          for (const field of NONCE_SPACE)
            if (query[field] === undefined)
              throw new ApiError(
                "validation_error",
                `${field}: required with contract and nonce (network, contract, payer and nonce name one payment)`,
                { field },
              );
          const id = lookup.idOf(query as unknown as { [K in (typeof NONCE_SPACE)[number]]: string });
          const record = id === undefined ? undefined : await lookup.byId(id);
          return { payments: record ? [record] : [], next: null };
        }
        const limit = query.limit === undefined ? undefined : Number(query.limit);
        if (limit !== undefined && (limit < 1 || limit > MAX_LOOKUP_PAGE))
          throw new ApiError("validation_error", `limit: from 1 to ${MAX_LOOKUP_PAGE}`, { field: "limit" });
        const holder = context.keyHolder(request);
        if (holder === undefined)
          throw new ApiError(
            "unauthorized",
            "listing payments needs x-admin-api-key, or x-api-key with a merchant key configured with its payTo addresses",
          );
        const { status, payee, ...rest } = query;
        const filter: ListingFilter = {
          ...rest,
          limit,
          ...(status && { status: status === "settled" ? "success" : status }),
        };
        if (holder === "admin") return lookup.list({ ...filter, ...(payee && { payee }) });
        if (holder.payTo.length === 0)
          throw new ApiError(
            "unauthorized",
            "this merchant key has no payTo addresses: configure it as { key, payTo } to list its payments",
          );
        // A merchant sees the payments to its own addresses only: another payee selects nothing.
        const payees = payee ? holder.payTo.filter((address) => address === payee.toLowerCase()) : holder.payTo;
        return lookup.list({ ...filter, payees });
      },
      {
        query: PaymentsQuery,
        response: { 200: PaymentListSchema, 400: ErrorResponse, 401: ErrorResponse, 429: ErrorResponse },
        detail: {
          tags,
          security: LISTING_KEYS,
          summary: "Payments by nonce space (public), or a listing by payee, payer, time, flow or status (a key)",
          description:
            "With network, contract, payer and nonce (what a signed body holds): the payment they name, public, as a " +
            "list of at most one. Otherwise a listing, newest first, at most 200 per page (limit, default 50; `next` " +
            "is the `before` of the next page). A listing needs x-admin-api-key (every payment), or x-api-key with " +
            "a merchant key configured as { key, payTo }: only the payments to its payTo addresses are listed.",
        },
      },
    );
}
