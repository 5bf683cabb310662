// A webhook endpoint's signing secret comes from WEBHOOK_SECRET_<ID> (the file may hold none), and a secret that is
// not Standard Webhooks' `whsec_…` stops the start naming the field and its variable, never the value.
import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config/load";
import { bscProductionConfig } from "../support/production-config";
import { newWebhookSecret } from "../support/webhook-receiver";

const endpoint = (id: string, secret?: string) => ({
  id,
  url: "https://shop.example/hooks",
  ...(secret ? { secret } : {}),
});
const load = (env: Record<string, string>, endpoints: object[]) => {
  const production = bscProductionConfig();
  return loadConfig({
    env: { ...production.env, ...env },
    file: production.file,
    overrides: { webhooks: { endpoints } },
  });
};
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("the config loaded");
};

describe("WEBHOOK_SECRET_<ID>", () => {
  test("sets the secret of an endpoint the file gives none", () => {
    const secret = newWebhookSecret();
    const config = load({ WEBHOOK_SECRET_SHOP: secret }, [endpoint("shop")]);
    expect(config.webhooks?.endpoints[0]?.secret).toBe(secret);
  });

  test("overrides the file's secret, per endpoint, the id upper-cased with - as _", () => {
    const [fileSecret, envSecret, otherSecret] = [newWebhookSecret(), newWebhookSecret(), newWebhookSecret()];
    const config = load({ WEBHOOK_SECRET_MY_SHOP: envSecret }, [
      endpoint("my-shop", fileSecret),
      endpoint("ops", otherSecret),
    ]);
    expect(config.webhooks?.endpoints.map((item) => item.secret)).toEqual([envSecret, otherSecret]);
  });

  test("an empty variable leaves the file's secret", () => {
    const secret = newWebhookSecret();
    const config = load({ WEBHOOK_SECRET_SHOP: "" }, [endpoint("shop", secret)]);
    expect(config.webhooks?.endpoints[0]?.secret).toBe(secret);
  });
});

describe("a secret that is not whsec_…", () => {
  const bad = [
    ["a password", "hunter2-is-not-a-webhook-secret"],
    ["base64 without the prefix", newWebhookSecret().slice("whsec_".length)],
    ["the prefix and too few bytes", "whsec_c2hvcnQ="],
  ] as const;
  for (const [what, value] of bad) {
    test(`${what}: refused naming the field and its variable, never echoing the value`, () => {
      const error = refusal(() => load({ WEBHOOK_SECRET_SHOP: value }, [endpoint("shop")]));
      expect(error.problems).toHaveLength(1);
      expect(error.message).toContain("webhooks.endpoints.0.secret (WEBHOOK_SECRET_SHOP)");
      expect(error.message).not.toContain(value);
    });
  }

  test("a missing secret names the variable to set", () => {
    const error = refusal(() => load({}, [endpoint("ok", newWebhookSecret()), endpoint("orders")]));
    expect(error.message).toContain("webhooks.endpoints.1.secret (WEBHOOK_SECRET_ORDERS)");
  });
});
