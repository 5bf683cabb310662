import { Elysia } from "elysia";
import { isAdminRequest } from "../http/admin-guard";
import type { clientConfig } from "./client-config";
import type { checkHealth } from "./health";
import { ClientConfigSchema, HealthSchema } from "./schemas";

/** What /health and /config answer, from the service container. */
export type Status = {
  /** With `figures` (the admin key), the operator's figures beside each component's status. */
  health(options: { figures: boolean }): ReturnType<typeof checkHealth>;
  config(): ReturnType<typeof clientConfig>;
};

export function statusRoutes(status: Status, adminApiKey: string) {
  return new Elysia({ name: "status", seed: Math.random() })
    .get(
      "/health",
      async ({ set, request }) => {
        // A wrong key answers the public shape; the rate limiter has counted it as a failed admin-key attempt.
        const health = await status.health({ figures: isAdminRequest(request, adminApiKey) });
        // Draining is 503 too: a load balancer's health check takes the instance out of rotation.
        if (health.status === "down" || health.status === "draining") set.status = 503;
        return health;
      },
      {
        detail: {
          tags: ["Utility"],
          summary: "Service, chain, bundler and database health (503 when down or draining)",
          description:
            "Public: the status of each network's components (chain, bundler, swaps, key leases) and of the database. " +
            "With x-admin-api-key, each network adds the operator's figures: executors (address and balance), " +
            "paymasterDeposit, and keyLeases.held / keyLeases.keys. A wrong key gets the public shape.",
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
