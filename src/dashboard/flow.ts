import type { Flow } from "../flow";
import { STUCK_AFTER_MS } from "./attention";
import { createDashboard, type Dashboard } from "./dashboard";
import { type DashboardStore, dashboardStore } from "./dashboard-store";
import { DASHBOARD_EXAMPLES } from "./examples";
import { DASHBOARD_KEY } from "./key";
import { dashboardRoutes } from "./routes";

/**
 * The operator's dashboard: /dashboard (a page served by the service, no other origin) and the JSON API it reads,
 * /dashboard/api/*, behind a read-only key of its own. Every figure comes from the database (and balances from
 * the chain), so every instance on one PostgreSQL shows the same. It settles nothing: no network enables it.
 */
export const dashboardFlow: Flow<"dashboard", Dashboard, DashboardStore> = {
  name: "dashboard",
  store: dashboardStore,
  create: (context, store) => createDashboard(context, store),
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
