import { createHmac } from "node:crypto";

// Standard Webhooks' signature (https://www.standardwebhooks.com): HMAC-SHA256 keyed by the secret's bytes (the
// base64 after `whsec_`) over `${webhook-id}.${webhook-timestamp}.${body}`, sent as `v1,<base64>`. The receivers
// of the tests verify it with the `standardwebhooks` package, which is how merchants are told to.

const keyOf = (secret: string) => Buffer.from(secret.replace(/^whsec_/, ""), "base64");

export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac("sha256", keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/** The headers of one delivery attempt: the id stays the same across attempts, the timestamp is the attempt's. */
export function webhookHeaders(secret: string, id: string, timestampSeconds: number, body: string) {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": signWebhook(secret, id, timestampSeconds, body),
  };
}
