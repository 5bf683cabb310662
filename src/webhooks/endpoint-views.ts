import type { WebhookEndpoint } from "./settings";
import type { WebhookStore } from "./webhook-store";

/** An endpoint's URL as an operator sees it: no credentials, no query string (either may carry a token). */
export const shownUrl = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
};

/**
 * The configured endpoints as the admin routes and the dashboard show them: never a secret nor a URL's credentials
 * or query, whether each is disabled, and its deliveries' counts.
 */
export async function endpointViews(
  store: Pick<WebhookStore, "disabledEndpoints" | "endpointCounts">,
  endpoints: readonly WebhookEndpoint[],
) {
  const [disabled, counts] = await Promise.all([store.disabledEndpoints(), store.endpointCounts()]);
  return endpoints.map((endpoint) => ({
    id: endpoint.id,
    url: shownUrl(endpoint.url),
    events: endpoint.events ? [...endpoint.events] : null,
    networks: endpoint.networks ? [...endpoint.networks] : null,
    payTo: endpoint.payTo ? [...endpoint.payTo] : null,
    disabled: disabled.get(endpoint.id) ?? null,
    deliveries: counts.get(endpoint.id) ?? { pending: 0, failing: 0, delivered: 0, dead: 0 },
  }));
}

export type EndpointView = Awaited<ReturnType<typeof endpointViews>>[number];
