import type { Flow } from "../flow";
import { WEBHOOK_EXAMPLES } from "./examples";
import { webhookRoutes } from "./routes";
import type { WebhookStore } from "./webhook-store";
import { webhookStore } from "./webhook-store-sql";
import { createWebhooks, type Webhooks } from "./webhooks";

/**
 * Signed webhooks: the outbox's events (written by the database in the transaction of each status change)
 * delivered to the configured endpoints, and the operator's controls. It settles nothing: no network enables it.
 */
export const webhooksFlow: Flow<"webhooks", Webhooks, WebhookStore> = {
  name: "webhooks",
  store: webhookStore,
  create: (context, store) => createWebhooks(context, store),
  routes: (webhooks, context) => webhookRoutes(webhooks, context),
  start: (webhooks) => webhooks.start(),
  stop: (webhooks) => webhooks.stop(),
  afterSending: (webhooks) => webhooks.wake(),
  enabledOn: () => false,
  openapi: {
    tags: [
      {
        name: "Webhooks",
        order: 85,
        description:
          "Standard Webhooks signed events (payment.settled, payment.failed, payment.pending, onboarding.*, the " +
          "operator's alerts) and the operator's controls of their deliveries. docs/webhooks.md.",
      },
    ],
    examples: WEBHOOK_EXAMPLES,
  },
};
