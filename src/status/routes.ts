import { Elysia } from "elysia";
import type { clientConfig } from "./client-config";
import type { checkHealth } from "./health";
import { ClientConfigSchema, HealthSchema } from "./schemas";

/** What /health and /config answer, from the service container. */
export type Status = {
  health(): ReturnType<typeof checkHealth>;
  config(): ReturnType<typeof clientConfig>;
};

export function statusRoutes(status: Status) {
  return new Elysia({ name: "status", seed: Math.random() })
    .get(
      "/health",
      async ({ set }) => {
        const health = await status.health();
        // Draining is 503 too: a load balancer's health check takes the instance out of rotation.
        if (health.status === "down" || health.status === "draining") set.status = 503;
        return health;
      },
      {
        detail: {
          tags: ["Utility"],
          summary: "Service, chain, bundler and database health (503 when down or draining)",
        },
        response: { 200: HealthSchema, 503: HealthSchema },
      },
    )
    .get("/config", () => status.config(), {
      response: { 200: ClientConfigSchema },
      detail: {
        tags: ["Utility"],
        summary: "Per network: chain id, EIP-712 domain and types, spender, contracts, tokens, fees, limits",
      },
    });
}
