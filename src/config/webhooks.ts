import { Type as T } from "@sinclair/typebox";
import { WEBHOOK_EVENT_TYPES } from "../webhooks/event-types";

/**
 * Signed webhooks (src/webhooks/, docs/webhooks.md): where events are delivered, and how hard the service tries.
 * Every field but the endpoints has a default (WEBHOOK_DEFAULTS).
 */
export const WEBHOOK_DEFAULTS = {
  /** A payment sent this long ago with no receipt raises payment.pending. */
  pendingAfterSeconds: 60,
  /** How long one delivery attempt may take (the receiver's answer included). */
  timeoutMs: 10_000,
  /** The waits between attempts; the last one repeats: 5 s, 30 s, 2 min, 10 min, 1 h, then every 6 h. */
  retryScheduleSeconds: [5, 30, 120, 600, 3_600, 21_600],
  /** A delivery still failing this long after its event is dead-lettered: 3 days. */
  retryLimitSeconds: 259_200,
  /** Concluded events and deliveries older than this are purged: 7 days (more than the retry limit). */
  retentionSeconds: 604_800,
  /** How often an instance looks for events and due deliveries besides after its own settles. */
  pollMs: 1_000,
  /** How often an instance reads the executors' balances and the paymasters' deposits for the operator's alerts. */
  balanceCheckMs: 60_000,
} as const;

/** The secret's form Standard Webhooks gives: `whsec_` then base64 of 24 to 64 random bytes. */
export const WEBHOOK_SECRET_PATTERN = "^whsec_[A-Za-z0-9+/]{32,88}={0,2}$";

const EventType = T.Union(WEBHOOK_EVENT_TYPES.map((type) => T.Literal(type)));

export const WebhookEndpointSchema = T.Object(
  {
    /** Names the endpoint in deliveries, admin routes and its secret's variable WEBHOOK_SECRET_<ID>. */
    id: T.String({ pattern: "^[a-z0-9][a-z0-9_-]{0,39}$" }),
    url: T.String({ pattern: "^https?://[^\\s]+$", maxLength: 2048 }),
    /** The events it receives; absent: every payment and onboarding event (an operator's alert only when listed). */
    events: T.Optional(T.Array(EventType, { minItems: 1, uniqueItems: true })),
    /** Only events of these networks; absent: all. */
    networks: T.Optional(T.Array(T.String({ minLength: 1 }), { minItems: 1 })),
    /** Only payments to one of these addresses (a payment's payees); such an endpoint receives no other event. */
    payTo: T.Optional(T.Array(T.String({ pattern: "^0x[0-9a-fA-F]{40}$" }), { minItems: 1 })),
    /** The signing secret: from WEBHOOK_SECRET_<ID> (the id upper-cased, `-` as `_`); never logged or answered. */
    secret: T.String({ pattern: WEBHOOK_SECRET_PATTERN }),
  },
  { additionalProperties: false },
);

export const WebhooksSchema = T.Object(
  {
    endpoints: T.Array(WebhookEndpointSchema),
    pendingAfterSeconds: T.Optional(T.Integer({ minimum: 1 })),
    timeoutMs: T.Optional(T.Integer({ minimum: 100, maximum: 60_000 })),
    retryScheduleSeconds: T.Optional(T.Array(T.Number({ exclusiveMinimum: 0 }), { minItems: 1, maxItems: 20 })),
    retryLimitSeconds: T.Optional(T.Integer({ minimum: 1 })),
    retentionSeconds: T.Optional(T.Integer({ minimum: 60 })),
    pollMs: T.Optional(T.Integer({ minimum: 10 })),
    balanceCheckMs: T.Optional(T.Integer({ minimum: 100 })),
  },
  { additionalProperties: false },
);

/** The variable holding an endpoint's secret. */
export const webhookSecretVariable = (id: string) => `WEBHOOK_SECRET_${id.toUpperCase().replace(/-/g, "_")}`;
