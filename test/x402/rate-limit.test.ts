import { afterAll, describe, expect, test } from "bun:test";
import { encodeConfig, loadConfig } from "../../src/config/load";
import { trackServices } from "../support/service";
import { MERCHANT_API_KEY } from "./support";

const services = trackServices();
afterAll(() => services.stopAll());

describe("merchant API keys and /supported under the per-IP rate limit", () => {
  const limited = services.start({ rateLimitPerMinute: 2, trustProxy: true, merchantApiKeys: [MERCHANT_API_KEY] });
  const from = (ip: string, headers: Record<string, string> = {}) =>
    limited.get("/config", { "x-forwarded-for": ip, ...headers });

  test("a request carrying a configured x-api-key is not counted or refused", async () => {
    const merchant = { "x-api-key": MERCHANT_API_KEY };
    for (let i = 0; i < 5; i++) expect((await from("198.51.100.1", merchant)).status).toBe(200);
    // The merchant's requests used none of the address's budget.
    expect((await from("198.51.100.1")).status).toBe(200);
    expect((await from("198.51.100.1")).status).toBe(200);
    expect((await from("198.51.100.1")).status).toBe(429);
    expect((await from("198.51.100.1", merchant)).status).toBe(200);
  });

  test("a wrong or empty key is held to the limit like any client", async () => {
    for (const key of [`${MERCHANT_API_KEY}x`, MERCHANT_API_KEY.slice(0, -1), ""]) {
      const ip = `198.51.100.${10 + key.length}`;
      expect((await from(ip, { "x-api-key": key })).status).toBe(200);
      expect((await from(ip, { "x-api-key": key })).status).toBe(200);
      expect((await from(ip, { "x-api-key": key })).status).toBe(429);
    }
  });

  test("GET /supported is exempt (x402 clients read it at start)", async () => {
    for (let i = 0; i < 5; i++) {
      const response = await limited.get("/supported", { "x-forwarded-for": "198.51.100.99" });
      expect(response.status).toBe(200);
    }
    expect((await limited.get("/api/v1/supported", { "x-forwarded-for": "198.51.100.99" })).status).toBe(200);
  });

  test("a key from MERCHANT_API_KEYS lifts the limit; a wrong one does not", async () => {
    const envKey = "merchant-key-from-the-env-01";
    // The service runs the config loadConfig reads from the environment, as the binary does.
    const fromEnv = services.start({ rateLimitPerMinute: 2, trustProxy: true }, (config) =>
      Object.assign(config, loadConfig({ env: { MERCHANT_API_KEYS: envKey }, overrides: encodeConfig(config) })),
    );
    const get = (ip: string, key: string) => fromEnv.get("/config", { "x-forwarded-for": ip, "x-api-key": key });
    for (let i = 0; i < 5; i++) expect((await get("198.51.100.150", envKey)).status).toBe(200);
    for (const key of [`${envKey}x`, MERCHANT_API_KEY]) {
      const ip = `198.51.100.${151 + key.length}`;
      expect((await get(ip, key)).status).toBe(200);
      expect((await get(ip, key)).status).toBe(200);
      expect((await get(ip, key)).status).toBe(429);
    }
  });

  test("without merchantApiKeys in config, x-api-key lifts nothing", async () => {
    const plain = services.start({ rateLimitPerMinute: 1, trustProxy: true });
    const headers = { "x-forwarded-for": "198.51.100.200", "x-api-key": MERCHANT_API_KEY };
    expect((await plain.get("/config", headers)).status).toBe(200);
    expect((await plain.get("/config", headers)).status).toBe(429);
  });
});
