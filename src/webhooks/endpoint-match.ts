import { ONBOARDING_EVENTS, PAYMENT_EVENTS, type WebhookEventType } from "./event-types";
import type { WebhookEndpoint } from "./settings";

/** What an endpoint without `events` receives: every payment and onboarding event; operator alerts only when listed. */
const DEFAULT_EVENTS: readonly WebhookEventType[] = [...PAYMENT_EVENTS, ...ONBOARDING_EVENTS];

/** What an endpoint's filters look at: the event's type and network, and a payment's payees. */
export type EventFacts = {
  type: WebhookEventType;
  network: string | null;
  payees?: readonly string[];
  endpoint: string | null;
};

/**
 * Whether an event goes to an endpoint. A test event goes to the one endpoint it names. A `payTo` filter passes
 * only payments to one of its addresses, so a merchant's endpoint never sees another's payments nor the operator's
 * events.
 */
export function endpointWants(endpoint: WebhookEndpoint, event: EventFacts): boolean {
  if (event.endpoint !== null || event.type === "webhook.test") return event.endpoint === endpoint.id;
  if (!(endpoint.events ?? DEFAULT_EVENTS).includes(event.type)) return false;
  if (endpoint.networks && (event.network === null || !endpoint.networks.includes(event.network))) return false;
  if (endpoint.payTo) {
    const payees = event.payees ?? [];
    return payees.some((payee) => endpoint.payTo?.includes(payee.toLowerCase()));
  }
  return true;
}
