// The events a webhook endpoint may subscribe to (docs/webhooks.md). Payment and funded-approve events are written
// by the database's triggers (migrations 0020 / PostgreSQL 0011) in the transaction of the status change; the
// others by the service: payment.pending by the sweep of payments sent long ago, the operator's alerts by the
// balance watch, webhook.test by an admin.

export const PAYMENT_EVENTS = ["payment.settled", "payment.failed", "payment.pending"] as const;

/** A funded approve's steps: its funding landed and the approve was broadcast, then each way it can end. */
export const ONBOARDING_EVENTS = [
  "onboarding.funded",
  "onboarding.approved",
  "onboarding.diverted",
  "onboarding.reverted",
  "onboarding.refused",
  "onboarding.abandoned",
] as const;

/** Raised once per crossing of the threshold, whichever instance sees it first. */
export const OPERATOR_EVENTS = ["executor.low_balance", "paymaster.low_deposit"] as const;

export const WEBHOOK_EVENT_TYPES = [
  ...PAYMENT_EVENTS,
  ...ONBOARDING_EVENTS,
  ...OPERATOR_EVENTS,
  "webhook.test",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Where an event's record lives: the lookup's sources, the funded approvals, or nothing (an operator's alert). */
export const PAYMENT_SOURCES = ["eoa_settlements", "x402_settlements", "swap_settlements", "issued_user_ops"] as const;
export type EventSource = (typeof PAYMENT_SOURCES)[number] | "funded_approvals" | "operator";
