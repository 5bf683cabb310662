import { Webhook } from "standardwebhooks";

/** One verified delivery as a benchmark's receiver saw it: which event, of which payment, when (performance.now()). */
export type Arrival = { webhookId: string; type: string; paymentId: string | undefined; at: number };

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export const newWebhookSecret = () =>
  `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")}`;

/**
 * A merchant's receiver for a benchmark: Bun.serve on a fixed port, verifying every delivery with the
 * `standardwebhooks` library as merchants are told to, answering 200 to what verifies and 401 to the rest. It can go
 * down (the port closed: a refused connection, as when a merchant's server is off) and come back on the same port.
 */
export function startBenchReceiver(secret: string) {
  const verifier = new Webhook(secret);
  const arrivals: Arrival[] = [];
  let rejected = 0;
  const handler = async (request: Request) => {
    const body = await request.text();
    try {
      const event = verifier.verify(body, Object.fromEntries(request.headers.entries())) as {
        type: string;
        data: { paymentId?: string } | null;
      };
      arrivals.push({
        webhookId: request.headers.get("webhook-id") ?? "",
        type: event.type,
        paymentId: event.data?.paymentId,
        at: performance.now(),
      });
      return new Response(null, { status: 200 });
    } catch {
      rejected += 1;
      return new Response("bad signature", { status: 401 });
    }
  };
  let server: ReturnType<typeof Bun.serve> | undefined = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: handler });
  const port = server.port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    arrivals,
    rejected: () => rejected,
    /** The first arrival of each webhook-id (a receiver deduplicates by it). */
    unique() {
      const seen = new Map<string, Arrival>();
      for (const arrival of arrivals) if (!seen.has(arrival.webhookId)) seen.set(arrival.webhookId, arrival);
      return [...seen.values()];
    },
    down() {
      server?.stop(true);
      server = undefined;
    },
    up() {
      server ??= Bun.serve({ port, hostname: "127.0.0.1", fetch: handler });
    },
    stop() {
      server?.stop(true);
      server = undefined;
    },
  };
}

export type BenchReceiver = ReturnType<typeof startBenchReceiver>;
