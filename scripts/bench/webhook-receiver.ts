import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import type { Cleanups } from "./bench-devnet";
import { startChild } from "./child";

/** One verified delivery as a receiver saw it: which event, of which payment, and when (epochMs()). */
export type Arrival = { webhookId: string; type: string; paymentId: string | undefined; at: number };

/** Wall-clock ms with performance.now()'s resolution: the same clock in every process of the bench. */
export const epochMs = () => performance.timeOrigin + performance.now();

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export const newWebhookSecret = () =>
  `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")}`;

/**
 * A merchant's receiver (in scripts/bench/webhook-receivers-process.ts): Bun.serve on a fixed port, verifying every
 * delivery with the `standardwebhooks` library as merchants are told to, answering 200 to what verifies (reported
 * to `arrived`) and 401 to the rest. It can go down (its port closed: a refused connection, as when a merchant's
 * server is off) and come back on the same port.
 */
export function serveReceiver(secret: string, arrived: (arrival: Arrival) => void, rejected: () => void) {
  const verifier = new Webhook(secret);
  const handler = async (request: Request) => {
    const body = await request.text();
    try {
      const event = verifier.verify(body, Object.fromEntries(request.headers.entries())) as {
        type: string;
        data: { paymentId?: string } | null;
      };
      const webhookId = request.headers.get("webhook-id") ?? "";
      arrived({ webhookId, type: event.type, paymentId: event.data?.paymentId, at: epochMs() });
      return new Response(null, { status: 200 });
    } catch {
      rejected();
      return new Response("bad signature", { status: 401 });
    }
  };
  let server: ReturnType<typeof Bun.serve> | undefined = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: handler });
  const port = server.port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    down() {
      server?.stop(true);
      server = undefined;
    },
    up() {
      server ??= Bun.serve({ port, hostname: "127.0.0.1", fetch: handler });
    },
  };
}

/** A receiver of the receivers' process, as the bench sees it: what arrived so far, and its port closed or open. */
export type BenchReceiver = {
  url: string;
  arrivals: Arrival[];
  /** The first arrival of each webhook-id (a receiver deduplicates by it). */
  unique(): Arrival[];
  /** Deliveries that failed verification so far. */
  rejected(): number;
  down(): Promise<void>;
  up(): Promise<void>;
};

export type ReceiverMessage =
  | { kind: "arrival"; receiver: number; arrival: Arrival }
  | { kind: "rejected"; receiver: number }
  | { kind: "done"; receiver: number; command: "down" | "up" };

/**
 * One receiver per secret, in a process of their own: their verifying is no work of the bench's process, which
 * runs the load generator and the RPC counting proxy the service's settles go through.
 */
export async function startReceivers(
  secrets: string[],
  cleanups: Cleanups,
): Promise<{ pid: number; receivers: BenchReceiver[] }> {
  const arrivals: Arrival[][] = secrets.map(() => []);
  const rejected = secrets.map(() => 0);
  const waiting = new Map<string, () => void>();
  const child = await startChild(
    join(import.meta.dir, "webhook-receivers-process.ts"),
    { BENCH_RECEIVER_SECRETS: JSON.stringify(secrets) },
    60_000,
    (message) => {
      const each = message as ReceiverMessage;
      if (each.kind === "arrival") arrivals[each.receiver]?.push(each.arrival);
      else if (each.kind === "rejected") rejected[each.receiver] = (rejected[each.receiver] ?? 0) + 1;
      else waiting.get(`${each.command}:${each.receiver}`)?.();
    },
  );
  cleanups.push(() => child.stop());
  const urls = child.info.urls as string[];
  const command = (receiver: number, name: "down" | "up") =>
    new Promise<void>((resolve) => {
      waiting.set(`${name}:${receiver}`, resolve);
      child.send({ command: name, receiver });
    });
  const receivers = secrets.map((_, i) => ({
    url: urls[i] as string,
    arrivals: arrivals[i] as Arrival[],
    unique() {
      const seen = new Map<string, Arrival>();
      for (const arrival of arrivals[i] ?? []) if (!seen.has(arrival.webhookId)) seen.set(arrival.webhookId, arrival);
      return [...seen.values()];
    },
    rejected: () => rejected[i] ?? 0,
    down: () => command(i, "down"),
    up: () => command(i, "up"),
  }));
  return { pid: child.pid, receivers };
}
