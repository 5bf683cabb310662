import type { Flow, FlowStore } from "../flow";
import { webhookStore } from "../webhooks/webhook-store-sql";
import { STUCK_AFTER_MS } from "./attention";
import { createDashboard } from "./dashboard";
import { type DashboardStore, dashboardStore } from "./dashboard-store";
import { DASHBOARD_EXAMPLES } from "./examples";
import { DASHBOARD_KEY } from "./key";
import { createPaymentView, type DashboardService, type OutboxReads } from "./payment-view";
import { dashboardRoutes } from "./routes";

type DashboardStores = DashboardStore & { outbox: OutboxReads };

/** The dashboard's reads, and the webhooks' outbox read through the webhooks' own adapter on the same database. */
const dashboardStores: FlowStore<DashboardStores> = {
  sqlite: (db) => ({ ...dashboardStore.sqlite(db), outbox: webhookStore.sqlite(db) }),
  postgres: async () => {
    const [figures, outbox] = await Promise.all([dashboardStore.postgres(), webhookStore.postgres()]);
    return (db) => ({ ...figures(db), outbox: outbox(db) });
  },
};

/**
 * The operator's dashboard: /dashboard (a page served by the service, no other origin) and the JSON API it reads,
 * /dashboard/api/*, behind a read-only key of its own. Every figure comes from the database (and balances from
 * the chain), so every instance on one PostgreSQL shows the same. It settles nothing: no network enables it.
 */
export const dashboardFlow: Flow<"dashboard", DashboardService, DashboardStores> = {
  name: "dashboard",
  store: dashboardStores,
  create: (context, store) =>
    Object.assign(createDashboard(context, store), {
      payments: createPaymentView(context, store.rows, store.outbox),
    }),
  routes: (dashboard, context) => dashboardRoutes(dashboard, context),
  key: DASHBOARD_KEY,
  start: (dashboard) => dashboard.start(),
  stop: (dashboard) => dashboard.stop(),
  gauges: (dashboard) => [
    {
      name: "relay402_stuck_records",
      help: `Settlement records of the last 30 days still pending ${STUCK_AFTER_MS / 60_000} minutes after they were created, by network and flow (the database's, so every instance on one PostgreSQL says the same)`,
      read: () => dashboard.stuckCounts(),
    },
  ],
  enabledOn: () => false,
  openapi: {
    tags: [
      {
        name: "Dashboard",
        order: 90,
        description:
          "The operator's figures (what was paid, what it cost, what needs attention) as the /dashboard page shows " +
          "them. Read only; needs `x-dashboard-api-key` (or `Authorization: Bearer`) with the dashboard key or the " +
          "admin key. docs/dashboard.md says what each figure means.",
      },
    ],
    examples: DASHBOARD_EXAMPLES,
    securitySchemes: {
      dashboardApiKey: {
        type: "apiKey",
        in: "header",
        name: "x-dashboard-api-key",
        description: "The dashboard's read-only key (dashboardApiKey) or the admin key.",
      },
    },
  },
};
