// An answer that depends on a key must never be kept by a cache or a browser and served to someone else, nor
// read as another content type: every answer under /dashboard/api/* (its 401, 404 and 429 included), and every
// /health or /metrics answer to a request that carries a key, says `Cache-Control: no-store`, `Vary` on the key
// headers and `X-Content-Type-Options: nosniff`.
import { afterAll, describe, expect, test } from "bun:test";
import { DASHBOARD_KEY } from "../support/dashboard";
import { trackServices } from "../support/service";

const services = trackServices();
afterAll(() => services.stopAll());
const service = services.start({ dashboardApiKey: DASHBOARD_KEY, rateLimitPerMinute: 10, trustProxy: true });
const admin = service.config.adminApiKey;
const from = (ip: string, path: string, headers: Record<string, string> = {}) =>
  service.get(path, { "x-forwarded-for": ip, ...headers });

function expectNeverCached(answer: { status: number; headers: Headers }, what: string) {
  const context = `${what} (${answer.status})`;
  expect(answer.headers.get("cache-control"), context).toBe("no-store");
  expect(answer.headers.get("x-content-type-options"), context).toBe("nosniff");
  const vary = (answer.headers.get("vary") ?? "").toLowerCase();
  for (const header of ["x-dashboard-api-key", "authorization", "x-admin-api-key"])
    expect(vary, `${context}: Vary`).toContain(header);
}

describe("answers that depend on a key are never cached", () => {
  test("/dashboard/api/*: 200, 401 (no key, wrong key), 404 and 429, with and without /api/v1", async () => {
    for (const [i, prefix] of ["", "/api/v1"].entries()) {
      const summary = `${prefix}/dashboard/api/summary`;
      const opened = await from(`10.8.${i}.1`, summary, { "x-dashboard-api-key": DASHBOARD_KEY });
      expect(opened.status).toBe(200);
      expectNeverCached(opened, summary);
      const bearer = await from(`10.8.${i}.1`, `${prefix}/dashboard/api/attention`, {
        authorization: `Bearer ${admin}`,
      });
      expect(bearer.status).toBe(200);
      expectNeverCached(bearer, "attention");
      const none = await from(`10.8.${i}.2`, summary);
      expect(none.status).toBe(401);
      expectNeverCached(none, `${summary} without a key`);
      const unknown = await from(`10.8.${i}.2`, `${prefix}/dashboard/api/nothing-here`, {
        "x-dashboard-api-key": DASHBOARD_KEY,
      });
      expect(unknown.status).toBe(404);
      expectNeverCached(unknown, "an unknown dashboard route");
      const wrong = await from(`10.8.${i}.3`, summary, { "x-dashboard-api-key": "a-wrong-dashboard-key" });
      expect(wrong.status).toBe(401);
      expectNeverCached(wrong, `${summary} with a wrong key`);
      const limited = await from(`10.8.${i}.3`, summary, { "x-dashboard-api-key": DASHBOARD_KEY });
      expect(limited.status).toBe(429);
      expectNeverCached(limited, `${summary} once the budget is spent`);
    }
  });

  test("/health and /metrics with a key: the admin's figures, a wrong key's answer and a 429", async () => {
    const cases: [string, Record<string, string>, number][] = [
      ["/health", { "x-admin-api-key": admin }, 200],
      ["/api/v1/health", { "x-admin-api-key": admin }, 200],
      ["/health", { "x-dashboard-api-key": DASHBOARD_KEY }, 200],
      ["/metrics", { "x-admin-api-key": admin }, 200],
      ["/metrics", { authorization: `Bearer ${admin}` }, 200],
      ["/api/v1/metrics", { authorization: `Bearer ${admin}` }, 200],
    ];
    for (const [i, [path, headers, status]] of cases.entries()) {
      const answer = await from(`10.8.2.${i}`, path, headers);
      expect(answer.status).toBe(status);
      expectNeverCached(answer, `${path} with ${Object.keys(headers)[0]}`);
    }
    const wrongHealth = await from("10.8.3.1", "/health", { "x-admin-api-key": "a-wrong-admin-key-0" });
    expect(wrongHealth.status).toBe(200);
    expectNeverCached(wrongHealth, "/health with a wrong admin key");
    const wrongMetrics = await from("10.8.3.2", "/metrics", { authorization: "Bearer a-wrong-admin-key-0" });
    expect(wrongMetrics.status).toBe(401);
    expectNeverCached(wrongMetrics, "/metrics with a wrong key");
    const limited = await from("10.8.3.1", "/health", { "x-admin-api-key": "a-wrong-admin-key-1" });
    expect(limited.status).toBe(429);
    expectNeverCached(limited, "/health with a wrong key once the budget is spent");
  });
});
