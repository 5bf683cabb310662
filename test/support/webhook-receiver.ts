import { Webhook } from "standardwebhooks";

/** A Standard Webhooks secret for a test endpoint: `whsec_` and 32 random bytes in base64. */
export const newWebhookSecret = () =>
  `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")}`;

export type ReceivedDelivery = {
  id: string;
  timestamp: string;
  /** The webhook-signature header, so a test can re-send a captured delivery. */
  signature: string;
  type: string;
  data: Record<string, unknown>;
  body: string;
  receivedAt: number;
  /** The sender's port of the connection (which process sent it can be told from it). */
  remotePort: number;
};

/**
 * A merchant's webhook receiver: a real HTTP server (Bun.serve) that verifies every delivery with the
 * `standardwebhooks` library, as merchants are told to, and keeps what verified. `answer` decides each reply (a
 * status, or a promise of one: a receiver that takes its time); a delivery that fails verification is answered
 * 401 and counted in `rejected`.
 */
export function startWebhookReceiver(
  secret: string,
  answer: (delivery: ReceivedDelivery) => number | Promise<number> = () => 200,
) {
  const verifier = new Webhook(secret);
  const verified: ReceivedDelivery[] = [];
  const rejected: { headers: Record<string, string>; body: string }[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request, server) {
      const body = await request.text();
      const headers = Object.fromEntries(request.headers.entries());
      let parsed: { type: string; data: Record<string, unknown> };
      try {
        parsed = verifier.verify(body, headers) as typeof parsed;
      } catch {
        rejected.push({ headers, body });
        return new Response("bad signature", { status: 401 });
      }
      const delivery: ReceivedDelivery = {
        id: headers["webhook-id"] as string,
        timestamp: headers["webhook-timestamp"] as string,
        signature: headers["webhook-signature"] as string,
        type: parsed.type,
        data: parsed.data,
        body,
        receivedAt: performance.now(),
        remotePort: server.requestIP(request)?.port ?? 0,
      };
      const status = await answer(delivery);
      // A delivery counts as received once the receiver acknowledged it (a 2xx), as a merchant's would.
      if (status >= 200 && status < 300) verified.push(delivery);
      return new Response(null, { status });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/hooks`,
    verified,
    rejected,
    /** The acknowledged deliveries deduplicated by webhook-id, as a receiver should: the first of each. */
    unique() {
      const seen = new Map<string, ReceivedDelivery>();
      for (const delivery of verified) if (!seen.has(delivery.id)) seen.set(delivery.id, delivery);
      return [...seen.values()];
    },
    /** Acknowledged deliveries of one event type whose data matches. */
    of(type: string, match: (data: Record<string, unknown>) => boolean = () => true) {
      return this.unique().filter((delivery) => delivery.type === type && match(delivery.data));
    },
    stop: () => server.stop(true),
  };
}
