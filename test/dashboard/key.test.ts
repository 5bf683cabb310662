// The dashboard's key: its API refuses a request without it or with a wrong one (a guess that costs the client's
// rate-limit budget what a wrong admin key does), opens with it or with the admin key (header or Bearer), and the
// key never comes back in an answer or a log line. The page and its files need no key: they hold no figure.
import { afterAll, describe, expect, test } from "bun:test";
import { DEVNET_DASHBOARD_API_KEY, loadConfig } from "../../src/config/load";
import { DASHBOARD_KEY } from "../support/dashboard";
import { bscProductionConfig } from "../support/production-config";
import { trackServices } from "../support/service";

const logs: string[] = [];
const services = trackServices();
afterAll(() => services.stopAll());
const MERCHANT_KEY = "a-merchant-key-for-tests-0001";
const service = services.start(
  {
    dashboardApiKey: DASHBOARD_KEY,
    merchantApiKeys: [MERCHANT_KEY],
    rateLimitPerMinute: 10,
    trustProxy: true,
    logRequests: true,
  },
  undefined,
  (line) => logs.push(line),
);
const ROUTES = ["/dashboard/api/summary", "/dashboard/api/settlements", "/dashboard/api/attention"];
const from = (ip: string, path: string, headers: Record<string, string> = {}) =>
  service.get(path, { "x-forwarded-for": ip, ...headers });

describe("the dashboard key", () => {
  test("no key: 401 on every API route, with or without /api/v1", async () => {
    for (const [i, path] of [...ROUTES, ...ROUTES.map((route) => `/api/v1${route}`)].entries()) {
      const answer = await from(`10.9.0.${i}`, path);
      expect(answer.status).toBe(401);
      expect(answer.body.code).toBe("unauthorized");
      expect(answer.body.message).toContain("x-dashboard-api-key");
    }
  });

  test("the dashboard key and the admin key open it, as the header or a Bearer token", async () => {
    const keys = [DASHBOARD_KEY, service.config.adminApiKey];
    for (const [i, key] of keys.entries()) {
      expect((await from(`10.9.1.${i}`, ROUTES[0] as string, { "x-dashboard-api-key": key })).status).toBe(200);
      expect((await from(`10.9.2.${i}`, ROUTES[1] as string, { authorization: `Bearer ${key}` })).status).toBe(200);
    }
  });

  test("a wrong key is refused and spends the client's budget like a wrong admin key; it is never echoed", async () => {
    const guess = "a-guess-at-the-dashboard-key";
    const first = await from("10.9.3.1", ROUTES[0] as string, { "x-dashboard-api-key": guess });
    expect(first.status).toBe(401);
    expect(JSON.stringify(first.body)).not.toContain(guess);
    const second = await from("10.9.3.1", ROUTES[0] as string, { "x-dashboard-api-key": `${guess}-2` });
    expect(second.status).toBe(429);
    expect(second.body.code).toBe("rate_limit_exceeded");
    expect((await from("10.9.3.2", ROUTES[2] as string, { authorization: `Bearer ${guess}` })).status).toBe(401);
    expect((await from("10.9.3.2", "/config")).status).toBe(429);
    // Without a key a client is refused, not limited harder (no guess was made).
    for (let i = 0; i < 5; i++) expect((await from("10.9.3.3", ROUTES[1] as string)).status).toBe(401);
  });

  test("a merchant key does not make wrong dashboard keys free: each still costs the budget", async () => {
    const merchant = { "x-api-key": MERCHANT_KEY };
    // The merchant key alone lifts the limit (its buyers share its address)...
    for (let i = 0; i < 12; i++) expect((await from("10.9.6.1", "/config", merchant)).status).toBe(200);
    // ...but a guess at the dashboard key beside it is a guess: the second one finds the budget spent.
    const guess = { ...merchant, "x-dashboard-api-key": "a-guess-beside-a-merchant-key" };
    expect((await from("10.9.6.2", ROUTES[0] as string, guess)).status).toBe(401);
    const second = await from("10.9.6.2", ROUTES[0] as string, guess);
    expect(second.status).toBe(429);
    expect(second.body.code).toBe("rate_limit_exceeded");
    // The same with the guess as a Bearer token, and with a right admin key beside a wrong dashboard key.
    const bearer = { ...merchant, authorization: "Bearer a-guess-beside-a-merchant-key" };
    expect((await from("10.9.6.3", ROUTES[1] as string, bearer)).status).toBe(401);
    expect((await from("10.9.6.3", ROUTES[1] as string, bearer)).status).toBe(429);
  });

  test("the dashboard key does not open the admin routes", async () => {
    const answer = await service.post(
      "/deploy/verify",
      {},
      { "x-admin-api-key": DASHBOARD_KEY, "x-forwarded-for": "10.9.4.1" },
    );
    expect(answer.status).toBe(401);
  });

  test("the page and its files are served without a key, under a strict Content-Security-Policy", async () => {
    for (const path of ["/dashboard", "/dashboard/assets/dashboard.js", "/dashboard/assets/dashboard.css"]) {
      const answer = await from("10.9.5.1", path);
      expect(answer.status).toBe(200);
      const csp = answer.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
    }
    expect((await from("10.9.5.2", "/dashboard/assets/other.js")).status).toBe(404);
  });

  test("an asset name that is a property of every object is no file: 404", async () => {
    for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"]) {
      const answer = await from(`10.9.7.${name.length}`, `/dashboard/assets/${name}`);
      expect(answer.status).toBe(404);
      expect(answer.body.code).toBe("not_found");
    }
  });

  test("no log line holds a key", () => {
    expect(logs.length).toBeGreaterThan(0);
    for (const line of logs) {
      expect(line).not.toContain(DASHBOARD_KEY);
      expect(line).not.toContain("a-guess-at-the-dashboard-key");
      expect(line).not.toContain(service.config.adminApiKey);
    }
  });
});

describe("dashboardApiKey in config", () => {
  const { env, file } = bscProductionConfig();

  test("DASHBOARD_API_KEY sets it; at least 16 characters", () => {
    expect(loadConfig({ env: { ...env, DASHBOARD_API_KEY: "a-dashboard-key-0001" }, file }).dashboardApiKey).toBe(
      "a-dashboard-key-0001",
    );
    expect(loadConfig({ env, file }).dashboardApiKey).toBeUndefined();
    expect(() => loadConfig({ env: { ...env, DASHBOARD_API_KEY: "short" }, file })).toThrow(/dashboardApiKey/);
  });

  test("production refuses it equal to the admin key or a public devnet key; the message never quotes it", () => {
    for (const value of [env.ADMIN_API_KEY, DEVNET_DASHBOARD_API_KEY, "relay402-devnet-admin-key"]) {
      let message = "";
      try {
        loadConfig({ env: { ...env, DASHBOARD_API_KEY: value }, file });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain("dashboardApiKey");
      expect(message).not.toContain(value);
    }
    const devnet = loadConfig({
      env: { ...env, DASHBOARD_API_KEY: DEVNET_DASHBOARD_API_KEY },
      file,
      overrides: { mode: "devnet" },
    });
    expect(devnet.dashboardApiKey).toBe(DEVNET_DASHBOARD_API_KEY);
  });
});
