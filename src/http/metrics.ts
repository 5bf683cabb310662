import { Elysia } from "elysia";
import { ApiError } from "../errors";
import { processMetrics } from "../metrics/metrics";
import { EXPOSITION_CONTENT_TYPE } from "../metrics/registry";
import type { Services } from "../services";
import { isAdminRequest, timingSafeEqualString } from "./admin-guard";

/**
 * True when the request carries the admin key, as `x-admin-api-key` or as `Authorization: Bearer <key>` (what a
 * Prometheus scrape config's `authorization` block sends).
 */
export function hasMetricsKey(request: Request, adminApiKey: string): boolean {
  if (isAdminRequest(request, adminApiKey)) return true;
  const header = request.headers.get("authorization");
  if (!header?.startsWith("Bearer ")) return false;
  return timingSafeEqualString(header.slice("Bearer ".length), adminApiKey);
}

/**
 * GET /metrics: Prometheus text exposition of the process's counters and histograms and of the service's gauges
 * (balances read from the chain at most every few seconds). An operator endpoint like the deployment routes: it
 * needs the admin key, since it tells anyone who reads it the traffic, the executors' funds and when they run dry.
 */
export function metricsRoutes(services: Services) {
  return new Elysia({ name: "metrics", seed: Math.random() }).get(
    "/metrics",
    async ({ request }) => {
      if (!hasMetricsKey(request, services.config.adminApiKey)) {
        throw new ApiError("unauthorized", "missing or wrong x-admin-api-key (or Authorization: Bearer)");
      }
      const text = processMetrics.render() + (await services.gauges.render());
      return new Response(text, { headers: { "content-type": EXPOSITION_CONTENT_TYPE } });
    },
    {
      detail: {
        tags: ["Utility"],
        summary: "Prometheus metrics (admin key, as x-admin-api-key or Authorization: Bearer)",
        description:
          "Text exposition format 0.0.4: relay402_http_requests_total, relay402_settle_duration_seconds, relay402_receipt_lag_seconds, relay402_userop_receipt_lag_seconds, relay402_executor_in_flight_transactions, relay402_executor_balance_wei, relay402_paymaster_deposit_wei, relay402_balances_read_ok, relay402_draining, relay402_work_in_flight.",
      },
    },
  );
}
