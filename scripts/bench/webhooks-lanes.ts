// bench:webhooks' parts every phase uses: relay402 in a child process on a given database and webhook settings, a
// settle, a lane of settles at concurrency 1 with its CPU (from /proc), its server-side time (from /metrics) and
// the deliveries of its events, and the host's load while it ran.
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { benchServiceConfig, type Cleanups } from "./bench-devnet";
import { type Child, startChild } from "./child";
import { postJson } from "./load";
import { cpuMsOf, hostCpuMs } from "./proc";
import { startRpcCounter } from "./rpc-counter";
import { percentile } from "./stats";
import { type BenchReceiver, epochMs } from "./webhook-receiver";

/** After a lane's last answer, how long its CPU is still counted: the deliveries of its last events. */
const LANE_TAIL_MS = 1_000;

export const ms = (value: number) => `${value.toFixed(1)} ms`;

export type Lane = {
  label: string;
  settles: number;
  p50: number;
  p99: number;
  /** The service's own time per settle (request to answer), the mean of its relay402_settle_duration_seconds. */
  serverMean: number;
  cpuPerSettle: number;
  roundTrips: number;
  /** Per receiver and settle: from the settle's answer to the event verified at the receiver, in ms. */
  delivery: number[];
  failures: string[];
  host: string;
};

/** A settle's answer; `answeredAt` on the receivers' clock (epochMs). */
export type Settled = { ok: boolean; paymentId: string; answeredAt: number; latency: number; reason: string };

/** A service of the bench: its process, and the RPC counting proxy it reaches the chain through. */
export type Service = {
  child: Child;
  counter: ReturnType<typeof startRpcCounter>;
  /** From its spawn to its first answer. */
  startMs: number;
  stop(): Promise<void>;
};

/** A lane: settles sent to `service`, whose events `expecting` should each receive once. */
export type LaneSpec = { label: string; service: Service; expecting: BenchReceiver[] };

type KitOptions = {
  devnet: { manifest: Parameters<typeof benchServiceConfig>[0]; pids: number[] };
  payment: () => Promise<string>;
  cleanups: Cleanups;
  /** The bench's own processes besides the devnet's and the service's (this one, the receivers'). */
  benchPids: number[];
};

export function laneKit({ devnet, payment, cleanups, benchPids }: KitOptions) {
  /**
   * relay402 on `database` with these webhook settings (none: no `webhooks` section), sending with `executorKeys`
   * (services running side by side get keys of their own), through an RPC counter of its own; warmed up by 5 settles.
   */
  async function service(
    database: string,
    webhooks: Record<string, unknown> | undefined,
    executorKeys: readonly string[],
  ): Promise<Service> {
    const counter = startRpcCounter(devnet.manifest.networks.bsc.rpcUrl);
    cleanups.push(() => counter.stop());
    const config = await benchServiceConfig(devnet.manifest, "bsc", counter.url, database, {
      ...(webhooks ? { webhooks: webhooks as never } : {}),
    });
    Object.assign(config.networks.bsc ?? {}, { executorKeys });
    const spawnedAt = performance.now();
    const entry = join(import.meta.dir, "relay402-process.ts");
    // A start may purge a large outbox first: give it time.
    const child = await startChild(entry, { RELAY402_BENCH_CONFIG: JSON.stringify(config) }, 600_000);
    const startMs = performance.now() - spawnedAt;
    const stop = async () => {
      await child.stop();
      counter.stop();
    };
    cleanups.push(stop);
    for (let i = 0; i < 5; i++) await settle(child, await payment());
    return { child, counter, startMs, stop };
  }

  async function settle(child: Child, body: string): Promise<Settled> {
    const began = epochMs();
    const { status, json } = await postJson(`${child.url}/settle`, body);
    const answeredAt = epochMs();
    const ok = status === 200 && typeof json.transaction === "string";
    return {
      ok,
      paymentId: json.paymentId,
      answeredAt,
      latency: answeredAt - began,
      reason: json.code ?? `HTTP ${status}`,
    };
  }

  /** The service's settle histogram so far (flow eoa, status 200): seconds in all and settles. */
  async function settleSeconds(child: Child) {
    const response = await fetch(`${child.url}/metrics`, {
      headers: { "x-admin-api-key": devnet.manifest.adminApiKey },
    });
    const text = await response.text();
    const value = (name: string) =>
      Number(new RegExp(`^${name}\\{flow="eoa",status="200"\\} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);
    return {
      sum: value("relay402_settle_duration_seconds_sum"),
      count: value("relay402_settle_duration_seconds_count"),
    };
  }

  /** The host's load from this call to its answer's call, other processes told apart from the bench's own. */
  function hostLoad(servicePids: number[]) {
    const ours = () => [...benchPids, ...servicePids, ...devnet.pids].reduce((sum, pid) => sum + cpuMsOrZero(pid), 0);
    const host0 = hostCpuMs();
    const ours0 = ours();
    return () => {
      const host = hostCpuMs();
      const cores = cpus().length;
      const wall = (host.totalMs - host0.totalMs) / cores;
      const busy = (host.busyMs - host0.busyMs) / wall;
      const others = Math.max(0, host.busyMs - host0.busyMs - (ours() - ours0)) / wall;
      const load = loadavg()
        .map((value) => value.toFixed(2))
        .join(" ");
      return `host: ${cores} cores, ${busy.toFixed(2)} of them busy on average, ${others.toFixed(2)} by other processes than the devnet, the service and this bench; load average ${load}`;
    };
  }

  /**
   * `count` settles per lane at concurrency 1, the lanes taking turns settle by settle (each first in turn), so that
   * the host's load, which changes by the second on a shared machine, weighs on every lane alike; then the
   * deliveries of their events (each once). Each service's CPU is counted until LANE_TAIL_MS after the last answer,
   * whether it has endpoints or not.
   */
  async function settleLanes(specs: LaneSpec[], count: number): Promise<Lane[]> {
    const bodies = await Promise.all(specs.map(() => Promise.all(Array.from({ length: count }, payment))));
    const host = hostLoad(specs.map((spec) => spec.service.child.pid));
    const server0 = await Promise.all(specs.map((spec) => settleSeconds(spec.service.child)));
    for (const spec of specs) spec.service.counter.reset();
    const cpu0 = specs.map((spec) => cpuMsOf(spec.service.child.pid));
    const answers: Settled[][] = specs.map(() => []);
    for (let i = 0; i < count; i++) {
      for (let k = 0; k < specs.length; k++) {
        const lane = (i + k) % specs.length;
        const spec = specs[lane] as LaneSpec;
        answers[lane]?.push(await settle(spec.service.child, bodies[lane]?.[i] as string));
      }
    }
    const lastAnswer = performance.now();
    const eventsOf = (receiver: BenchReceiver, paymentId: string) =>
      receiver.unique().filter((arrival) => arrival.type === "payment.settled" && arrival.paymentId === paymentId);
    const settledOf = (lane: number) => (answers[lane] ?? []).filter((answer) => answer.ok);
    const arrived = () =>
      specs.every((spec, lane) =>
        spec.expecting.every((receiver) =>
          settledOf(lane).every((answer) => eventsOf(receiver, answer.paymentId).length > 0),
        ),
      );
    while (!arrived() && performance.now() - lastAnswer < 30_000) await Bun.sleep(10);
    await Bun.sleep(Math.max(0, LANE_TAIL_MS - (performance.now() - lastAnswer)));
    const cpuMs = specs.map((spec, lane) => cpuMsOf(spec.service.child.pid) - (cpu0[lane] ?? 0));
    const roundTrips = specs.map((spec) => spec.service.counter.snapshot().roundTrips / count);
    const server = await Promise.all(specs.map((spec) => settleSeconds(spec.service.child)));
    const hostLine = host();
    return specs.map((spec, lane) => {
      const settled = settledOf(lane);
      const delivery: number[] = [];
      const failures = (answers[lane] ?? []).filter((answer) => !answer.ok).map((answer) => answer.reason);
      for (const receiver of spec.expecting) {
        for (const answer of settled) {
          const events = eventsOf(receiver, answer.paymentId);
          if (events.length !== 1) failures.push(`${events.length} payment.settled events at ${receiver.url}`);
          if (events[0]) delivery.push(events[0].at - answer.answeredAt);
        }
        if (receiver.rejected() > 0)
          failures.push(`${receiver.rejected()} deliveries failed verification at ${receiver.url}`);
      }
      const latencies = settled.map((answer) => answer.latency);
      const before = server0[lane] ?? { sum: 0, count: 0 };
      const after = server[lane] ?? { sum: 0, count: 0 };
      return {
        label: spec.label,
        settles: count,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        serverMean: ((after.sum - before.sum) * 1000) / (after.count - before.count),
        cpuPerSettle: (cpuMs[lane] ?? 0) / count,
        roundTrips: roundTrips[lane] ?? 0,
        delivery,
        failures,
        host: hostLine,
      };
    });
  }

  function printLane(lane: Lane) {
    console.log(`\n${lane.label}: /settle x${lane.settles}, concurrency 1, automine`);
    if (lane.failures.length > 0) console.log(`  FAILURES: ${[...new Set(lane.failures)].join(", ")}`);
    console.log(
      `  settle p50 ${ms(lane.p50)}, p99 ${ms(lane.p99)} (the service's own time: mean ${ms(lane.serverMean)}); CPU per settle ${ms(lane.cpuPerSettle)}; JSON-RPC round trips per settle ${lane.roundTrips.toFixed(2)}`,
    );
    if (lane.delivery.length > 0)
      console.log(
        `  settle answered → event verified at the receiver (${lane.delivery.length} deliveries): p50 ${ms(percentile(lane.delivery, 50))}, p99 ${ms(percentile(lane.delivery, 99))}, max ${ms(Math.max(...lane.delivery))}`,
      );
    console.log(`  ${lane.host}`);
  }

  return { service, settle, settleLanes, printLane, hostLoad };
}

function cpuMsOrZero(pid: number) {
  try {
    return cpuMsOf(pid);
  } catch {
    return 0;
  }
}
