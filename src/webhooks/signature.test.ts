import { describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { signWebhook, webhookHeaders } from "./signature";

const secret = `whsec_${Buffer.from("relay402-test-secret-of-32-bytes").toString("base64")}`;
const body = JSON.stringify({ type: "payment.settled", timestamp: "2026-01-01T00:00:00.000Z", data: { a: 1 } });

describe("signWebhook", () => {
  test("is what the standardwebhooks library verifies", () => {
    const now = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders(secret, "msg_1", now, body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  test("a forged body, another secret or an old timestamp fails verification", () => {
    const now = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders(secret, "msg_1", now, body);
    expect(() => new Webhook(secret).verify(body.replace("1", "2"), headers)).toThrow();
    const other = `whsec_${Buffer.from("another-secret-of-thirty-two-byt").toString("base64")}`;
    expect(() => new Webhook(other).verify(body, headers)).toThrow();
    // A replay of a captured delivery an hour later: outside the library's 5-minute tolerance.
    const old = webhookHeaders(secret, "msg_1", now - 3600, body);
    expect(() => new Webhook(secret).verify(body, old)).toThrow();
  });

  test("matches the specification's example", () => {
    // Standard Webhooks' own test vector (standard-webhooks/standard-webhooks, libraries' tests).
    const spec = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const payload = '{"test": 2432232314}';
    expect(signWebhook(spec, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, payload)).toBe(
      "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    );
  });
});
