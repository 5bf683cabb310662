// What the delivery tests share: a receiver that records every attempt it verified (not only the acknowledged
// ones) and sees two attempts of one webhook-id in flight at once, a settled payment to raise a real event, and the
// admin routes.
import type { Hex } from "viem";
import { signedPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, randomAddress } from "../support/chain";
import { type ReceivedDelivery, startWebhookReceiver } from "../support/webhook-receiver";

export type Attempt = ReceivedDelivery & { at: number; status: number };

/**
 * A receiver verifying every request with the standardwebhooks library (test/support/webhook-receiver.ts) that
 * answers with `decide` (a status, or a promise of one) and records each verified attempt with the wall-clock
 * time it arrived. `overlaps` lists the webhook-ids of which a second attempt arrived while one was in flight.
 */
export function recordingReceiver(secret: string, decide: (delivery: ReceivedDelivery) => number | Promise<number>) {
  const attempts: Attempt[] = [];
  const inFlight = new Map<string, number>();
  const overlaps: string[] = [];
  const held: ReceivedDelivery[] = [];
  const receiver = startWebhookReceiver(secret, async (delivery) => {
    const at = Date.now();
    held.push(delivery);
    const open = inFlight.get(delivery.id) ?? 0;
    if (open > 0) overlaps.push(delivery.id);
    inFlight.set(delivery.id, open + 1);
    try {
      const status = await decide(delivery);
      attempts.push({ ...delivery, at, status });
      return status;
    } finally {
      inFlight.set(delivery.id, (inFlight.get(delivery.id) ?? 1) - 1);
      held.splice(held.indexOf(delivery), 1);
    }
  });
  return {
    ...receiver,
    attempts,
    overlaps,
    /** The attempts not answered yet. */
    held,
    /** The attempts of one webhook-id, in order. */
    attemptsOf: (id: string) => attempts.filter((attempt) => attempt.id === id),
  };
}

/** A payment settled through `post` (a service's POST), whose payment.settled event the tests follow. */
export async function settledPayment(
  post: (path: string, body: unknown) => Promise<{ status: number; body: any }>,
  network: "bsc" | "base" = "bsc",
): Promise<Hex> {
  const unit = 10n ** BigInt(chainOf(network).token.decimals);
  const payer = await freshPayer(network);
  await approveRelayer(network, payer.key, 10n * unit);
  const body = await signedPayment({ network, key: payer.key, to: randomAddress(), value: unit });
  const settled = await post("/settle", body);
  if (settled.status !== 200) throw new Error(`settle answered ${settled.status}: ${JSON.stringify(settled.body)}`);
  return settled.body.paymentId as Hex;
}

type Requester = (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<{ status: number; body: any }>;

/** The webhooks' admin routes of a service, with its admin key. */
export function webhookAdmin(request: Requester, adminApiKey: string) {
  const headers = { "x-admin-api-key": adminApiKey };
  return {
    endpoints: () => request("GET", "/admin/webhooks/endpoints", undefined, headers),
    deliveries: (query: Record<string, string> = {}) =>
      request("GET", `/admin/webhooks/deliveries?${new URLSearchParams(query)}`, undefined, headers),
    replay: (deliveryId: number | string) =>
      request("POST", "/admin/webhooks/replay", { deliveryId: String(deliveryId) }, headers),
    test: (endpoint: string) => request("POST", "/admin/webhooks/test", { endpoint }, headers),
    enable: (endpoint: string) => request("POST", "/admin/webhooks/enable", { endpoint }, headers),
  };
}

/** Requests to a service process over HTTP, answered as the in-process services' `request` answers them. */
export function requestsOver(url: string): Requester {
  return async (method, path, body, headers = {}) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: any = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: response.status, body: parsed };
  };
}
