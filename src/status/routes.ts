import { Elysia, t } from "elysia";
import type { Services } from "../services";
import { clientConfig } from "./client-config";
import { checkHealth } from "./health";

export function statusRoutes(services: Services) {
  return new Elysia({ name: "status", seed: Math.random() })
    .get(
      "/health",
      async ({ set }) => {
        const health = await checkHealth(services);
        if (health.status === "down") set.status = 503;
        return health;
      },
      {
        detail: { tags: ["Utility"], summary: "Service, chain, bundler and database health (503 when down)" },
        response: { 200: t.Any(), 503: t.Any() },
      },
    )
    .get("/config", () => clientConfig(services), {
      detail: { tags: ["Utility"], summary: "Per network: chain id, EIP-712 domain, contracts, tokens, fees, limits" },
    });
}
