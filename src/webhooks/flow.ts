import type { Flow } from "../flow";
import { readBalances } from "../status/balances";
import { type BalanceWatch, createBalanceWatch } from "./alerts";
import { WEBHOOK_EXAMPLES } from "./examples";
import { webhookRoutes } from "./routes";
import type { WebhookStore } from "./webhook-store";
import { webhookStore } from "./webhook-store-sql";
import { createWebhooks, type Webhooks } from "./webhooks";

/** The webhooks' worker, and the watch of the balances that raises the operator's alerts through it. */
export type WebhooksService = Webhooks & { balanceWatch: BalanceWatch };

/**
 * Signed webhooks: the outbox's events (written by the database in the transaction of each status change)
 * delivered to the configured endpoints, the operator's alerts, and the operator's controls. It settles nothing:
 * no network enables it.
 */
export const webhooksFlow: Flow<"webhooks", WebhooksService, WebhookStore> = {
  name: "webhooks",
  store: webhookStore,
  create: (context, store) => {
    const webhooks = createWebhooks(context, store);
    const balanceWatch = createBalanceWatch({
      config: context.config,
      networks: context.networks,
      logger: context.logger,
      endpoints: webhooks.settings.endpoints,
      read: readBalances,
      raise: (alert) => webhooks.alert(alert),
    });
    return Object.assign(webhooks, { balanceWatch });
  },
  routes: (webhooks, context) => webhookRoutes(webhooks, context),
  start: (webhooks) => {
    webhooks.start();
    webhooks.balanceWatch.start();
  },
  stop: async (webhooks) => {
    await webhooks.balanceWatch.stop();
    await webhooks.stop();
  },
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
