// OpenAPI examples of the webhooks' admin answers, of shapes their schemas accept (test/http/openapi.test.ts checks each).
import { type Examples, MERCHANT } from "../examples";

/** A delivery as the admin routes and the dashboard list it. */
export const EXAMPLE_DELIVERY = {
  id: 41,
  eventId: "3f9a0c2e8b7d4e61a5c0d2f4b6a8c0e1",
  type: "payment.settled",
  source: "eoa_settlements",
  recordId: "1207",
  network: "bsc",
  endpoint: "orders",
  status: "delivered",
  attempts: 1,
  nextAttemptAt: "2026-01-01T00:00:00.431Z",
  lastStatus: 200,
  lastError: null,
  createdAt: "2026-01-01T00:00:00.418Z",
  deliveredAt: "2026-01-01T00:00:00.431Z",
};

const accepted = { ok: true };

export const WEBHOOK_EXAMPLES: Record<string, Examples> = {
  "GET /admin/webhooks/endpoints": {
    responses: {
      "200": {
        endpoints: [
          {
            id: "orders",
            url: "https://shop.example/webhooks/relay402",
            events: ["payment.settled", "payment.failed"],
            networks: null,
            payTo: [MERCHANT.toLowerCase()],
            disabled: null,
            deliveries: { pending: 0, failing: 0, delivered: 1207, dead: 0 },
          },
        ],
      },
    },
  },
  "GET /admin/webhooks/deliveries": { responses: { "200": { deliveries: [EXAMPLE_DELIVERY], next: null } } },
  "POST /admin/webhooks/replay": { request: { deliveryId: "41" }, responses: { "200": accepted } },
  "POST /admin/webhooks/test": { request: { endpoint: "orders" }, responses: { "200": accepted } },
  "POST /admin/webhooks/enable": { request: { endpoint: "orders" }, responses: { "200": accepted } },
};
