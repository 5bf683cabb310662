import { Bytes32Field } from "@relay402/client/wire/fields";
import { t } from "elysia";
import { IsoTime } from "../lookup/schemas";

const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(schema: T) => t.Union([schema, t.Null()]);

export const DeliveryStatusField = t.Union([t.Literal("pending"), t.Literal("delivered"), t.Literal("dead")]);
const EndpointId = t.String({ pattern: "^[a-z0-9][a-z0-9_-]{0,39}$", description: "an endpoint's id from the config" });

export const DeliverySchema = t.Object({
  id: t.Integer(),
  eventId: t.String({ description: "the deliveries' webhook-id is msg_ and this" }),
  type: t.String(),
  source: t.String({ description: "the record's table, or operator" }),
  recordId: Nullable(t.String()),
  network: Nullable(t.String()),
  endpoint: t.String(),
  status: DeliveryStatusField,
  attempts: t.Integer(),
  nextAttemptAt: t.String(),
  lastStatus: Nullable(t.Integer({ description: "the receiver's last HTTP status; null: no answer" })),
  lastError: Nullable(t.String()),
  createdAt: t.String(),
  deliveredAt: Nullable(t.String()),
});

export const DeliveryListSchema = t.Object({
  deliveries: t.Array(DeliverySchema),
  next: Nullable(t.String({ description: "the `before` of the next page; null on the last" })),
});

const Counts = t.Object({ pending: t.Integer(), failing: t.Integer(), delivered: t.Integer(), dead: t.Integer() });

export const EndpointListSchema = t.Object({
  endpoints: t.Array(
    t.Object({
      id: t.String(),
      url: t.String({ description: "scheme, host and path (never a query string or credentials)" }),
      events: Nullable(t.Array(t.String())),
      networks: Nullable(t.Array(t.String())),
      payTo: Nullable(t.Array(t.String())),
      disabled: Nullable(t.Object({ disabledAt: t.String(), reason: Nullable(t.String()) })),
      deliveries: Counts,
    }),
  ),
});

export const EndpointBody = t.Object({ endpoint: EndpointId }, { additionalProperties: false });
export const ReplayBody = t.Object(
  { deliveryId: t.String({ pattern: "^[1-9][0-9]{0,14}$", description: "a delivery's id (its `id` in a listing)" }) },
  { additionalProperties: false },
);

export const DeliveriesQuery = t.Object({
  endpoint: t.Optional(EndpointId),
  status: t.Optional(DeliveryStatusField),
  paymentId: t.Optional(Bytes32Field),
  before: t.Optional(IsoTime),
  limit: t.Optional(t.String({ pattern: "^[0-9]{1,6}$", description: "deliveries per page, 1 to 200 (default 50)" })),
});

export const AcceptedSchema = t.Object({ ok: t.Literal(true) });
