import { describe, expect, test } from "bun:test";
import { endpointWants } from "./endpoint-match";
import type { WebhookEndpoint } from "./settings";

const MERCHANT = "0x00000000000000000000000000000000000000aa";
const OTHER = "0x00000000000000000000000000000000000000bb";
const base: WebhookEndpoint = { id: "shop", url: "https://shop.example/hooks", secret: "whsec_x" };
const settled = { type: "payment.settled" as const, network: "bsc", endpoint: null, payees: [MERCHANT] };

describe("endpointWants", () => {
  test("without filters: every payment and onboarding event, no operator alert, no test", () => {
    expect(endpointWants(base, settled)).toBe(true);
    expect(endpointWants(base, { ...settled, type: "onboarding.diverted", payees: undefined })).toBe(true);
    expect(endpointWants(base, { ...settled, type: "executor.low_balance", payees: undefined })).toBe(false);
    expect(endpointWants(base, { ...settled, type: "webhook.test", endpoint: null })).toBe(false);
  });

  test("an operator alert reaches an endpoint that lists it", () => {
    const ops = { ...base, events: ["executor.low_balance" as const] };
    expect(endpointWants(ops, { ...settled, type: "executor.low_balance", payees: undefined })).toBe(true);
    expect(endpointWants(ops, settled)).toBe(false);
  });

  test("networks: only events of those networks", () => {
    expect(endpointWants({ ...base, networks: ["base"] }, settled)).toBe(false);
    expect(endpointWants({ ...base, networks: ["bsc"] }, settled)).toBe(true);
  });

  test("payTo: only payments to its addresses, whatever their case; no event without payees", () => {
    const shop = { ...base, payTo: [MERCHANT] };
    expect(endpointWants(shop, { ...settled, payees: [MERCHANT.toUpperCase().replace("0X", "0x")] })).toBe(true);
    expect(endpointWants(shop, { ...settled, payees: [OTHER] })).toBe(false);
    expect(endpointWants(shop, { ...settled, payees: [OTHER, MERCHANT] })).toBe(true);
    expect(endpointWants(shop, { ...settled, type: "onboarding.funded", payees: undefined })).toBe(false);
  });

  test("a test event goes to the one endpoint it names, whatever its filters", () => {
    const test_ = { type: "webhook.test" as const, network: null, endpoint: "shop" };
    expect(endpointWants({ ...base, events: ["payment.failed"], payTo: [OTHER] }, test_)).toBe(true);
    expect(endpointWants({ ...base, id: "other" }, test_)).toBe(false);
  });
});
