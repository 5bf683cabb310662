// bench:webhooks' two long phases: a receiver down for a while on the default retry schedule, and the purge of a
// large outbox at a service's start.
import type { Cleanups } from "./bench-devnet";
import { percentile } from "./stats";
import { outboxReader } from "./webhook-outbox";
import { type BenchReceiver, epochMs } from "./webhook-receiver";
import { type laneKit, ms, type Settled } from "./webhooks-lanes";

type Kit = ReturnType<typeof laneKit>;
type Phase = {
  kit: Kit;
  /** Executor keys no other running service uses. */
  executorKeys: readonly string[];
  database: string;
  webhooks: Record<string, unknown>;
  receivers: BenchReceiver[];
  payment: () => Promise<string>;
  log: (what: string) => void;
};

/**
 * The first receiver's port closed for `seconds` while one settle a second goes on, then open again: when each of
 * its events arrived after it was back, with how many attempts, and how the receivers left up fared meanwhile.
 */
export async function outagePhase(
  { kit, executorKeys, database, webhooks, receivers, payment, log }: Phase,
  seconds: number,
) {
  const service = await kit.service(database, webhooks, executorKeys);
  const { child } = service;
  const [down, ...up] = receivers as [BenchReceiver, ...BenchReceiver[]];
  const host = kit.hostLoad([child.pid]);
  await down.down();
  const downAt = performance.now();
  const answers: Settled[] = [];
  for (let i = 0; i < seconds; i++) {
    await Bun.sleep(Math.max(0, downAt + i * 1000 - performance.now()));
    answers.push(await kit.settle(child, await payment()));
  }
  await Bun.sleep(Math.max(0, downAt + seconds * 1000 - performance.now()));
  await down.up();
  const backAt = epochMs();
  const expected = new Map(answers.filter((answer) => answer.ok).map((answer) => [answer.paymentId, answer]));
  const arrivalsOf = (receiver: BenchReceiver) =>
    receiver.unique().filter((a) => a.type === "payment.settled" && expected.has(a.paymentId as string));
  let reported = 0;
  while (arrivalsOf(down).length < expected.size && epochMs() - backAt < 15 * 60_000) {
    await Bun.sleep(200);
    const arrived = arrivalsOf(down).length;
    if (arrived !== reported) log(`${arrived}/${expected.size} events at the receiver that was down`);
    reported = arrived;
  }
  const afterBack = arrivalsOf(down).map((arrival) => (arrival.at - backAt) / 1000);
  const repeated = down.arrivals.filter((a) => expected.has(a.paymentId as string)).length - afterBack.length;
  const upLatency = up.flatMap((receiver) =>
    arrivalsOf(receiver).map((arrival) => arrival.at - (expected.get(arrival.paymentId as string)?.answeredAt ?? 0)),
  );
  const reader = outboxReader(database);
  const attempts = reader.attempts("shop-1", [...expected.keys()]);
  reader.close();
  const hostLine = host();
  await service.stop();
  console.log(
    `\nshop-1's receiver down for ${seconds} s (its port closed), one settle a second meanwhile, default retry schedule`,
  );
  console.log(
    `  ${afterBack.length}/${expected.size} events arrived (${answers.length - expected.size} settles failed); ${repeated} delivered more than once`,
  );
  if (afterBack.length > 0)
    console.log(
      `  after the receiver was back: first ${Math.min(...afterBack).toFixed(1)} s, p50 ${percentile(afterBack, 50).toFixed(1)} s, p90 ${percentile(afterBack, 90).toFixed(1)} s, last ${Math.max(...afterBack).toFixed(1)} s`,
    );
  console.log(
    `  attempts per delivery: ${attempts.map((row) => `${row.attempts} (${row.status}) x${row.n}`).join(", ")}`,
  );
  console.log(
    `  the ${up.length} receivers up meanwhile: ${upLatency.length} events, p50 ${ms(percentile(upLatency, 50))} after the settle's answer`,
  );
  console.log(`  ${hostLine}`);
}

/**
 * A service started on `database` with the default retention purges what is older at its start: how long until no
 * such event is left (read by this process while it goes), the counts before and after, and settles meanwhile.
 */
export async function purgePhase(
  { kit, executorKeys, database, webhooks, receivers, log }: Phase,
  settles: number,
  retentionSeconds: number,
  cleanups: Cleanups,
) {
  const cutoff = () => new Date(Date.now() - retentionSeconds * 1000).toISOString();
  const reader = outboxReader(database);
  cleanups.push(() => reader.close());
  const before = reader.counts(cutoff());
  const polls: { at: number; old: number }[] = [];
  let polling = true;
  const spawnedAt = performance.now();
  const watch = (async () => {
    while (polling) {
      polls.push({ at: performance.now(), old: reader.before(cutoff()) });
      await Bun.sleep(100);
    }
  })();
  const service = await kit.service(database, webhooks, executorKeys);
  const label = "settles right after the start, while it purges";
  const [lane] = await kit.settleLanes([{ label, service, expecting: receivers }], settles);
  while ((polls.at(-1)?.old ?? 1) > 0 && performance.now() - spawnedAt < 30 * 60_000) await Bun.sleep(100);
  polling = false;
  await watch;
  await service.stop();
  log("counting the outbox after the purge");
  const after = reader.counts(cutoff());
  const seconds = (poll: { at: number } | undefined) => ((poll?.at ?? spawnedAt) - spawnedAt) / 1000;
  const began = polls.find((poll) => poll.old < before.before);
  const ended = polls.find((poll) => poll.old === 0);
  const purged = before.before - after.before;
  console.log(`\npurge at the start of a service with the default retention (7 days)`);
  console.log(
    `  before: ${before.events} events (${before.before} older than 7 days), ${before.deliveries} deliveries`,
  );
  console.log(
    `  after:  ${after.events} events (${after.before} older than 7 days), ${after.deliveries} deliveries, ${after.orphanDeliveries} deliveries without their event; every newer event kept: ${after.events >= before.events - before.before ? "yes" : "NO"}`,
  );
  console.log(
    `  ${purged} events purged with their deliveries: first gone ${seconds(began).toFixed(1)} s after the spawn, the last ${seconds(ended).toFixed(1)} s after it (${(purged / Math.max(0.1, seconds(ended) - seconds(began))).toFixed(0)} events/s); the service answered ${(service.startMs / 1000).toFixed(1)} s after the spawn`,
  );
  if (lane) kit.printLane(lane);
}
