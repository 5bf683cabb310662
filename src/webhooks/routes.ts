import { ErrorResponse } from "@relay402/client/wire/fields";
import { Elysia } from "elysia";
import { ApiError } from "../errors";
import type { RouteContext } from "../flow";
import {
  AcceptedSchema,
  DeliveriesQuery,
  DeliveryListSchema,
  EndpointBody,
  EndpointListSchema,
  ReplayBody,
} from "./schemas";
import type { Webhooks } from "./webhooks";

const tags = ["Webhooks"];
const security = [{ adminApiKey: [] }];
const errors = { 400: ErrorResponse, 401: ErrorResponse, 429: ErrorResponse };
const MAX_PAGE = 200;

/** The operator's controls of the webhooks, all behind the admin key (docs/webhooks.md). */
export function webhookRoutes(webhooks: Webhooks, context: RouteContext) {
  const known = (id: string) => {
    if (!webhooks.settings.endpoints.some((endpoint) => endpoint.id === id))
      throw new ApiError("not_found", "no webhook endpoint with this id is configured", { field: "endpoint" });
  };
  return new Elysia({ name: "webhooks", seed: Math.random() })
    .use(context.adminGuard)
    .get(
      "/admin/webhooks/endpoints",
      async ({ set }) => {
        set.headers["cache-control"] = "no-store";
        return { endpoints: await webhooks.endpoints() };
      },
      {
        admin: true,
        response: { 200: EndpointListSchema, ...errors },
        detail: {
          tags,
          security,
          summary: "The webhook endpoints, whether each is disabled, and its deliveries' counts",
          description: "Requires x-admin-api-key. failing: pending after at least one failed attempt.",
        },
      },
    )
    .get(
      "/admin/webhooks/deliveries",
      async ({ query, set }) => {
        set.headers["cache-control"] = "no-store";
        const limit = query.limit === undefined ? 50 : Number(query.limit);
        if (limit < 1 || limit > MAX_PAGE)
          throw new ApiError("validation_error", `limit: from 1 to ${MAX_PAGE}`, { field: "limit" });
        const deliveries = query.paymentId
          ? await webhooks.deliveriesOfPayment(query.paymentId, { ...query, limit })
          : await webhooks.deliveries({ ...query, limit });
        const next = !query.paymentId && deliveries.length === limit ? (deliveries.at(-1)?.createdAt ?? null) : null;
        return { deliveries, next };
      },
      {
        admin: true,
        query: DeliveriesQuery,
        response: { 200: DeliveryListSchema, ...errors },
        detail: {
          tags,
          security,
          summary: "Webhook deliveries, newest first: by endpoint, status or payment",
          description: "Requires x-admin-api-key. At most 200 per page; `next` is the `before` of the next page.",
        },
      },
    )
    .post(
      "/admin/webhooks/replay",
      async ({ body }) => {
        if (!(await webhooks.replay(Number(body.deliveryId))))
          throw new ApiError("not_found", "no webhook delivery with this id", { field: "deliveryId" });
        return { ok: true as const };
      },
      {
        admin: true,
        body: ReplayBody,
        response: { 200: AcceptedSchema, 404: ErrorResponse, ...errors },
        detail: {
          tags,
          security,
          summary: "Delivers one delivery again, now, with a new retry window (same webhook-id)",
          description: "Requires x-admin-api-key. Works on a delivered or dead delivery too.",
        },
      },
    )
    .post(
      "/admin/webhooks/test",
      async ({ body }) => {
        known(body.endpoint);
        if (!(await webhooks.sendTest(body.endpoint)))
          throw new ApiError(
            "validation_error",
            "this endpoint is disabled (it answered 410 Gone): enable it first with POST /admin/webhooks/enable",
            { field: "endpoint" },
          );
        return { ok: true as const };
      },
      {
        admin: true,
        body: EndpointBody,
        response: { 200: AcceptedSchema, 404: ErrorResponse, ...errors },
        detail: {
          tags,
          security,
          summary: "Sends a webhook.test event to one endpoint",
          description: "Requires x-admin-api-key. Its delivery is listed like any other.",
        },
      },
    )
    .post(
      "/admin/webhooks/enable",
      async ({ body }) => {
        known(body.endpoint);
        await webhooks.enable(body.endpoint);
        return { ok: true as const };
      },
      {
        admin: true,
        body: EndpointBody,
        response: { 200: AcceptedSchema, 404: ErrorResponse, ...errors },
        detail: {
          tags,
          security,
          summary: "Delivers to an endpoint disabled by a 410 again",
          description: "Requires x-admin-api-key. Its pending deliveries resume.",
        },
      },
    );
}
