// `bun run bench:webhooks`: what signed webhooks cost the settle path and how their events arrive, against a
// fresh devnet, relay402 in a child process of its own (its CPU read from /proc) on SQLite, receivers in this
// process (Bun.serve, every delivery verified with the `standardwebhooks` library). Prints:
//   1. /settle at concurrency 1 on automine with no webhook endpoint, with three, and with three over an outbox of
//      10^6 events (+ one delivery each), lanes interleaved round by round: p50, p99, CPU and RPC round trips per
//      settle, and how long each event took from its settle's answer to each receiver;
//   2. one receiver down for 60 s while a settle a second goes on, with the default retry schedule: when each of
//      its events arrived after it came back;
//   3. the purge of that outbox at the start of a service with the default retention (7 days): its time, rows/s,
//      the counts before and after, and settles meanwhile.
// Each phase prints the host's load (the machine may be shared): how busy its cores were, and how much of that was
// other processes than the devnet, the service and this bench.
//   bun run bench:webhooks [-- --settles 60 --rounds 3 --outbox 1000000 --outage-seconds 60]
import "../../src/production-env";
import { statSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { benchServiceConfig, type Cleanups, cleanUpOnExit, progress, startBenchDevnet } from "./bench-devnet";
import { type Child, startChild } from "./child";
import { eoaPaymentBody } from "./eoa-payment-body";
import { postJson } from "./load";
import { cpuMsOf, hostCpuMs } from "./proc";
import { startRpcCounter } from "./rpc-counter";
import { percentile } from "./stats";
import { fillOutbox, outboxReader } from "./webhook-outbox";
import { type BenchReceiver, newWebhookSecret, startBenchReceiver } from "./webhook-receiver";

const { values: flags } = parseArgs({
  args: process.argv.slice(2),
  options: {
    settles: { type: "string", default: "60" },
    rounds: { type: "string", default: "3" },
    outbox: { type: "string", default: "1000000" },
    "outage-seconds": { type: "string", default: "60" },
  },
});
const SETTLES = Number(flags.settles);
const ROUNDS = Number(flags.rounds);
const OUTBOX = Number(flags.outbox);
const OUTAGE_S = Number(flags["outage-seconds"]);
/** Of the filled outbox, the share older than the default retention (7 days): what the purge deletes. */
const OLD_SHARE = 0.6;
/** After a lane's last answer, how long its CPU is still counted: the deliveries of its last events. */
const LANE_TAIL_MS = 1_000;
const RETENTION_S = 604_800;

const ms = (value: number) => `${value.toFixed(1)} ms`;
const log = progress();
const cleanups: Cleanups = [];
const cleanUp = cleanUpOnExit(cleanups);

await bench().then(
  () => cleanUp().then(() => process.exit(0)),
  (error) => {
    console.error(error);
    return cleanUp().then(() => process.exit(1));
  },
);

async function bench() {
  const { createPublicClient, createTestClient, createWalletClient, http } = await import("viem");
  const { generatePrivateKey, privateKeyToAccount } = await import("viem/accounts");
  const { erc20Abi } = await import("@relay402/client/wire/abis");
  const { devnetChain } = await import("../devnet/chain");

  log("starting the devnet");
  const { devnet, dir } = await startBenchDevnet("webhooks", cleanups);
  const network = devnet.manifest.networks.bsc;
  const counter = startRpcCounter(network.rpcUrl);
  cleanups.push(() => counter.stop());
  const chain = devnetChain(network.chainId, "bsc", network.rpcUrl);
  const transport = http(network.rpcUrl);
  const publicClient = createPublicClient({ chain, transport });
  const token = network.tokens.USDT?.address as `0x${string}`;
  const payer = privateKeyToAccount(generatePrivateKey());
  const wallet = createWalletClient({ chain, transport, account: payer });
  await createTestClient({ chain, transport, mode: "anvil" }).setBalance({ address: payer.address, value: 10n ** 20n });
  for (const [functionName, args] of [
    ["mint", [payer.address, 10n ** 30n]],
    ["approve", [network.relayer, 10n ** 30n]],
  ] as const) {
    const hash = await wallet.writeContract({ address: token, abi: erc20Abi, functionName, args } as never);
    await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  }
  const payment = () => eoaPaymentBody(payer, network.relayer, token);

  const secrets = ["a", "b", "c"].map(() => newWebhookSecret());
  const receivers = secrets.map((secret) => startBenchReceiver(secret));
  cleanups.push(() => {
    for (const receiver of receivers) receiver.stop();
  });
  const endpoints = receivers.map((receiver, i) => ({ id: `shop-${i + 1}`, url: receiver.url, secret: secrets[i] }));
  const smallDb = join(dir, "outbox-small.sqlite");
  const bigDb = join(dir, "outbox-1e6.sqlite");

  /** relay402 on `database` with these webhook settings (none: no `webhooks` section), warmed up by 5 settles. */
  async function service(database: string, webhooks?: Record<string, unknown>) {
    const config = await benchServiceConfig(devnet.manifest, "bsc", counter.url, database, {
      ...(webhooks ? { webhooks: webhooks as never } : {}),
    });
    const spawnedAt = performance.now();
    const child = await startChild(
      join(import.meta.dir, "relay402-process.ts"),
      {
        RELAY402_BENCH_CONFIG: JSON.stringify(config),
      },
      600_000,
    );
    const startMs = performance.now() - spawnedAt;
    cleanups.push(() => child.stop());
    for (let i = 0; i < 5; i++) await settle(child, await payment());
    return { child, startMs };
  }

  async function settle(child: Child, body: string) {
    const began = performance.now();
    const { status, json } = await postJson(`${child.url}/settle`, body);
    const answeredAt = performance.now();
    const ok = status === 200 && typeof json.transaction === "string";
    return {
      ok,
      paymentId: json.paymentId as string,
      answeredAt,
      latency: answeredAt - began,
      reason: json.code ?? `HTTP ${status}`,
    };
  }

  /** The host's load between `begin()` and its answer's call, other processes told apart from the bench's own. */
  function hostLoad(servicePid: number) {
    const ours = () => [process.pid, servicePid, ...devnet.pids].reduce((sum, pid) => sum + safeCpuMs(pid), 0);
    const host0 = hostCpuMs();
    const ours0 = ours();
    return () => {
      const host = hostCpuMs();
      const cores = cpus().length;
      const wall = (host.totalMs - host0.totalMs) / cores;
      const busy = (host.busyMs - host0.busyMs) / wall;
      const others = Math.max(0, host.busyMs - host0.busyMs - (ours() - ours0)) / wall;
      return `host: ${cores} cores, ${busy.toFixed(2)} busy on average, of which other processes ${others.toFixed(2)}; load average ${loadavg()
        .map((value) => value.toFixed(2))
        .join(" ")}`;
    };
  }

  type Lane = {
    label: string;
    p50: number;
    p99: number;
    cpuPerSettle: number;
    roundTrips: number;
    delivery: number[];
    failures: string[];
    host: string;
  };

  /** `count` settles at concurrency 1, then the deliveries of their events to `expecting` (all of them, once each). */
  async function settleLane(label: string, child: Child, count: number, expecting: BenchReceiver[]): Promise<Lane> {
    const bodies = await Promise.all(Array.from({ length: count }, payment));
    const host = hostLoad(child.pid);
    counter.reset();
    const cpu0 = cpuMsOf(child.pid);
    const answers: Awaited<ReturnType<typeof settle>>[] = [];
    for (const body of bodies) answers.push(await settle(child, body));
    const lastAnswer = performance.now();
    const settled = answers.filter((answer) => answer.ok);
    const arrived = () =>
      expecting.every((receiver) => {
        const ids = new Set(
          receiver
            .unique()
            .filter((a) => a.type === "payment.settled")
            .map((a) => a.paymentId),
        );
        return settled.every((answer) => ids.has(answer.paymentId));
      });
    while (!arrived() && performance.now() - lastAnswer < 30_000) await Bun.sleep(10);
    await Bun.sleep(Math.max(0, LANE_TAIL_MS - (performance.now() - lastAnswer)));
    const cpuMs = cpuMsOf(child.pid) - cpu0;
    const delivery: number[] = [];
    const failures = answers.filter((answer) => !answer.ok).map((answer) => answer.reason);
    for (const receiver of expecting) {
      for (const answer of settled) {
        const events = receiver
          .unique()
          .filter((a) => a.type === "payment.settled" && a.paymentId === answer.paymentId);
        if (events.length !== 1) failures.push(`${events.length} payment.settled events at ${receiver.url}`);
        if (events[0]) delivery.push(events[0].at - answer.answeredAt);
      }
    }
    const latencies = settled.map((answer) => answer.latency);
    return {
      label,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      cpuPerSettle: cpuMs / count,
      roundTrips: counter.snapshot().roundTrips / count,
      delivery,
      failures,
      host: host(),
    };
  }

  const printLane = (lane: Lane) => {
    console.log(`\n${lane.label}: /settle x${SETTLES}, concurrency 1, automine`);
    if (lane.failures.length > 0) console.log(`  FAILURES: ${[...new Set(lane.failures)].join(", ")}`);
    console.log(
      `  settle p50 ${ms(lane.p50)}, p99 ${ms(lane.p99)}; CPU per settle ${ms(lane.cpuPerSettle)}; JSON-RPC round trips per settle ${lane.roundTrips.toFixed(2)}`,
    );
    if (lane.delivery.length > 0)
      console.log(
        `  settle answered → event verified at the receiver (${lane.delivery.length} deliveries): p50 ${ms(percentile(lane.delivery, 50))}, p99 ${ms(percentile(lane.delivery, 99))}, max ${ms(Math.max(...lane.delivery))}`,
      );
    console.log(`  ${lane.host}`);
  };

  const three = { endpoints };
  // The big outbox's database: migrated and given real events by a first service, then filled while no service runs.
  log("preparing the outbox of 10^6 events");
  const first = await service(bigDb, three);
  await first.child.stop();
  const reader0 = outboxReader(bigDb);
  const payload = reader0.payload();
  reader0.close();
  if (!payload) throw new Error("no event was fanned out by the first service");
  const fillS = fillOutbox(bigDb, { events: OUTBOX, oldShare: OLD_SHARE, payload, endpoint: "shop-1" });
  log(
    `filled ${OUTBOX} events and their deliveries in ${fillS.toFixed(1)} s (${(statSync(bigDb).size / 2 ** 20).toFixed(0)} MiB)`,
  );

  const lanes: Record<string, Lane[]> = { none: [], three: [], big: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [key, label, database, webhooks] of [
      ["none", "no webhook endpoint", smallDb, undefined],
      ["three", "three endpoints", smallDb, three],
      ["big", `three endpoints, outbox of ${OUTBOX} events`, bigDb, { ...three, retentionSeconds: 315_360_000 }],
    ] as const) {
      log(`round ${round}/${ROUNDS}: ${label}`);
      const { child } = await service(database, webhooks);
      const lane = await settleLane(`round ${round}, ${label}`, child, SETTLES, webhooks ? receivers : []);
      await child.stop();
      printLane(lane);
      lanes[key]?.push(lane);
    }
  }

  log(`one receiver down for ${OUTAGE_S} s, default retry schedule`);
  const outage = await service(smallDb, three);
  const down = receivers[0] as BenchReceiver;
  const host = hostLoad(outage.child.pid);
  const since = new Date().toISOString();
  down.down();
  const downAt = performance.now();
  const outageAnswers: Awaited<ReturnType<typeof settle>>[] = [];
  for (let i = 0; i < OUTAGE_S; i++) {
    await Bun.sleep(Math.max(0, downAt + i * 1000 - performance.now()));
    outageAnswers.push(await settle(outage.child, await payment()));
  }
  await Bun.sleep(Math.max(0, downAt + OUTAGE_S * 1000 - performance.now()));
  down.up();
  const backAt = performance.now();
  const expected = new Set(outageAnswers.filter((answer) => answer.ok).map((answer) => answer.paymentId));
  const arrivalsOf = (receiver: BenchReceiver) =>
    receiver.unique().filter((a) => a.type === "payment.settled" && expected.has(a.paymentId as string));
  let reported = 0;
  while (arrivalsOf(down).length < expected.size && performance.now() - backAt < 15 * 60_000) {
    await Bun.sleep(200);
    const now = arrivalsOf(down).length;
    if (now !== reported) log(`${now}/${expected.size} events at the receiver that was down`);
    reported = now;
  }
  const afterBack = arrivalsOf(down).map((arrival) => (arrival.at - backAt) / 1000);
  const duplicates = down.arrivals.filter((a) => expected.has(a.paymentId as string)).length - afterBack.length;
  const othersLatency = receivers.slice(1).flatMap((receiver) =>
    arrivalsOf(receiver).map((arrival) => {
      const answer = outageAnswers.find((each) => each.paymentId === arrival.paymentId);
      return arrival.at - (answer?.answeredAt ?? arrival.at);
    }),
  );
  const reader1 = outboxReader(smallDb);
  const attempts = reader1.attempts("shop-1", since);
  reader1.close();
  const outageHost = host();
  await outage.child.stop();
  console.log(
    `\nshop-1's receiver down for ${OUTAGE_S} s (port closed), one settle a second meanwhile, default retry schedule`,
  );
  console.log(
    `  ${afterBack.length}/${expected.size} events arrived (${outageAnswers.length - expected.size} settles failed); ${duplicates} repeated deliveries`,
  );
  console.log(
    `  after the receiver was back: first ${Math.min(...afterBack).toFixed(1)} s, p50 ${percentile(afterBack, 50).toFixed(1)} s, p90 ${percentile(afterBack, 90).toFixed(1)} s, last ${Math.max(...afterBack).toFixed(1)} s`,
  );
  console.log(
    `  attempts per delivery: ${attempts.map((row) => `${row.attempts} (${row.status}) x${row.n}`).join(", ")}`,
  );
  console.log(
    `  the two receivers up meanwhile: ${othersLatency.length} events, p50 ${ms(percentile(othersLatency, 50))} after the settle's answer`,
  );
  console.log(`  ${outageHost}`);

  log("purge of the outbox at a start with the default retention");
  const cutoff = () => new Date(Date.now() - RETENTION_S * 1000).toISOString();
  const reader2 = outboxReader(bigDb);
  const before = reader2.counts(cutoff());
  const polls: { at: number; old: number }[] = [];
  let polling = true;
  const spawnedAt = performance.now();
  const watch = (async () => {
    while (polling) {
      polls.push({ at: performance.now(), old: reader2.before(cutoff()) });
      await Bun.sleep(100);
    }
  })();
  const purging = await service(bigDb, three);
  const purgeLane = await settleLane("settles right after the start", purging.child, SETTLES, receivers);
  while ((polls.at(-1)?.old ?? 1) > 0 && performance.now() - spawnedAt < 30 * 60_000) await Bun.sleep(100);
  polling = false;
  await watch;
  await purging.child.stop();
  const after = reader2.counts(cutoff());
  reader2.close();
  const began = polls.find((poll) => poll.old < before.before) ?? polls[0];
  const ended = polls.find((poll) => poll.old === 0) ?? polls.at(-1);
  const purgeS = ((ended?.at ?? 0) - spawnedAt) / 1000;
  console.log(`\npurge at the start of a service with the default retention (7 days), outbox of ${OUTBOX} events`);
  console.log(
    `  before: ${before.events} events (${before.before} older than 7 days), ${before.deliveries} deliveries`,
  );
  console.log(
    `  after:  ${after.events} events (${after.before} older than 7 days), ${after.deliveries} deliveries, ${after.orphanDeliveries} deliveries without their event; every newer event kept: ${after.events >= before.events - before.before ? "yes" : "NO"}`,
  );
  console.log(
    `  old events gone ${purgeS.toFixed(1)} s after the spawn (first seen going ${(((began?.at ?? 0) - spawnedAt) / 1000).toFixed(1)} s after it; the service answered after ${(purging.startMs / 1000).toFixed(1)} s): ${((before.events - after.events) / Math.max(0.001, ((ended?.at ?? 0) - (began?.at ?? 0)) / 1000)).toFixed(0)} events/s`,
  );
  printLane(purgeLane);

  const median = (values: number[]) => percentile(values, 50);
  console.log("\nsummary (median of the rounds)");
  console.log(
    "| lane | settle p50 | settle p99 | CPU per settle | RPC round trips per settle | event after the answer, p50 / p99 |",
  );
  console.log("|---|---|---|---|---|---|");
  for (const [key, list] of Object.entries(lanes)) {
    const delivery = list.flatMap((lane) => lane.delivery);
    console.log(
      `| ${list[0]?.label.replace(/^round \d+, /, "") ?? key} | ${ms(median(list.map((l) => l.p50)))} | ${ms(median(list.map((l) => l.p99)))} | ${ms(median(list.map((l) => l.cpuPerSettle)))} | ${median(list.map((l) => l.roundTrips)).toFixed(2)} | ${delivery.length ? `${ms(percentile(delivery, 50))} / ${ms(percentile(delivery, 99))}` : "-"} |`,
    );
  }
}

function safeCpuMs(pid: number) {
  try {
    return cpuMsOf(pid);
  } catch {
    return 0;
  }
}
