import type { Config } from "../config/schema";

/**
 * The dashboard's read key (config `dashboardApiKey`, env DASHBOARD_API_KEY) guards its JSON API; the admin key
 * opens it too. Sent as `x-dashboard-api-key` or `Authorization: Bearer`, never in a URL.
 */
export const DASHBOARD_KEY = {
  pathPrefix: "/dashboard/api",
  header: "x-dashboard-api-key",
  keys: (config: Config) => [config.dashboardApiKey, config.adminApiKey].filter((key): key is string => !!key),
};
