// `bun scripts/bench/profile-settle.ts [--settles 60 --idle-seconds 30 --profile]`: where a facilitator's CPU goes
// at concurrency 1 on 1-second blocks, the lane of bench:x402 where relay402 and the x402 reference each wait a
// block per settle, so that whatever a process does while it waits is charged to its settles. Both run from source
// in child processes of their own on one base devnet. Prints per side, from /proc: the CPU per settle (over all the
// settles, and over each ten in turn: bench:x402's lane was ten settles long), the CPU per second while idle on 1-s
// blocks (no request), both split by thread; `--without-incognito` runs relay402 without its base pool (so without
// the incognito leaf indexer's sync every 5 s). With `--profile` both run under Bun's sampling profiler
// (`--cpu-prof`), whose own thread costs CPU (the /proc figures are then higher), and it prints the profile's time
// during the settles and while idle, by function, by file and by the nearest function of src/ on the stack.
//
// Not a test: figures on a shared machine are indicative; compare the columns with each other.
import "../../src/production-env";
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { devnetChain } from "../devnet/chain";
import { type Cleanups, cleanUpOnExit, progress, startBenchDevnet } from "./bench-devnet";
import { setBlockInterval, tokenFunder } from "./burst";
import { type CpuProfile, readProfile, selfTimeBy } from "./cpu-profile";
import { drive, type Outcome, settleAt } from "./load";
import { cpuMsOf, threadCpuDelta, threadCpuMsOf } from "./proc";
import { percentile } from "./stats";
import { startFacilitators } from "./vs-x402-facilitators";
import { SIDES, type Side } from "./vs-x402-report";
import { x402BodySigner } from "./x402-bodies";

const { values: flags } = parseArgs({
  args: process.argv.slice(2),
  options: {
    settles: { type: "string", default: "60" },
    "idle-seconds": { type: "string", default: "30" },
    top: { type: "string", default: "25" },
    /** Start both children with Bun's sampling profiler (its own thread costs CPU: the figures are higher). */
    profile: { type: "boolean", default: false },
    /** relay402 without its base pool, so without the incognito leaf indexer's sync every 5 s. */
    "without-incognito": { type: "boolean", default: false },
  },
});
const SETTLES = Number(flags.settles);
const IDLE_SECONDS = Number(flags["idle-seconds"]);
const TOP = Number(flags.top);
const PROFILE = flags.profile === true;

const cleanups: Cleanups = [];
const cleanUp = cleanUpOnExit(cleanups);
const step = progress();

try {
  step("building contracts, starting the devnet");
  const { devnet, dir } = await startBenchDevnet("profile-settle", cleanups);
  const network = devnet.manifest.networks.base;
  const usdc = network.tokens.USDC?.address as Address;
  const chain = devnetChain(network.chainId, "base", network.rpcUrl);

  // Each child writes its profile into a folder of its own when it stops (child.ts reads BENCH_CPU_PROF_DIR).
  const profileDir = join(dir, "profiles");
  mkdirSync(profileDir);
  if (PROFILE) process.env.BENCH_CPU_PROF_DIR = profileDir;
  const { children } = await startFacilitators({
    manifest: devnet.manifest,
    dir,
    cleanups,
    referencePollingMs: "",
    relay402From: "source",
    withoutIncognito: flags["without-incognito"] === true,
  });
  delete process.env.BENCH_CPU_PROF_DIR;

  step("both facilitators listen; funding payers, warming up on automine");
  const fund = tokenFunder({ chain, rpcUrl: network.rpcUrl, token: usdc, spender: network.relayer });
  const payerKeys = Array.from({ length: 4 }, () => generatePrivateKey());
  for (const key of payerKeys) await fund(key, 10n ** 12n);
  const { x402Body, x402Bodies } = x402BodySigner(payerKeys, {
    scheme: "exact",
    network: `eip155:${network.chainId}`,
    asset: usdc,
    amount: "1000",
    payTo: privateKeyToAccount(generatePrivateKey()).address,
    maxTimeoutSeconds: 3600,
    extra: { name: "USD Coin", version: "2" },
  });
  for (const side of SIDES)
    for (let i = 0; i < 5; i++) await settleAt(children[side].url)(await x402Body(), AbortSignal.timeout(30_000));

  await setBlockInterval(network.rpcUrl, 1);
  await Bun.sleep(2_000);

  type Threads = Map<string, number>;
  const measured = new Map<
    Side,
    { idle: number; idleThreads: Threads; settle: number; settleThreads: Threads; perTen: number[] }
  >();
  // The settle window of each side, in epoch ms as the profile's timestamps are (to cut its profile to the settles).
  const windows = new Map<Side, { fromMs: number; toMs: number; latencies: number[] }>();
  const idleWindows = new Map<Side, { fromMs: number; toMs: number }>();
  for (const side of SIDES) {
    const { pid, url } = children[side];
    step(`${side}: idle on 1-s blocks for ${IDLE_SECONDS} s`);
    let cpu = cpuMsOf(pid);
    let threads = threadCpuMsOf(pid);
    const idleFrom = Date.now();
    await Bun.sleep(IDLE_SECONDS * 1000);
    idleWindows.set(side, { fromMs: idleFrom, toMs: Date.now() });
    const idle = (cpuMsOf(pid) - cpu) / IDLE_SECONDS;
    const idleThreads = threadCpuDelta(threads, threadCpuMsOf(pid));

    step(`${side}: settle ×${SETTLES}, concurrency 1, 1-s blocks`);
    const bodies = await x402Bodies(SETTLES);
    const startedAt = Date.now();
    cpu = cpuMsOf(pid);
    threads = threadCpuMsOf(pid);
    // Ten at a time (one after the other, as at concurrency 1): bench:x402's lane was ten settles long, and how far
    // ten-settle windows of one run differ is how far a ten-settle figure can be trusted.
    const outcomes: Outcome[] = [];
    const perTen: number[] = [];
    for (let done = 0; done < SETTLES; done += 10) {
      const chunk = bodies.slice(done, done + 10);
      const before = cpuMsOf(pid);
      outcomes.push(...(await drive(chunk, 1, settleAt(url), chunk.length * 5_000 + 60_000)).outcomes);
      perTen.push((cpuMsOf(pid) - before) / chunk.length);
    }
    const result = { outcomes };
    const settle = (cpuMsOf(pid) - cpu) / SETTLES;
    const settleThreads = threadCpuDelta(threads, threadCpuMsOf(pid));
    windows.set(side, {
      fromMs: startedAt,
      toMs: Date.now(),
      latencies: result.outcomes.filter((o) => o.ok).map((o) => o.latency),
    });
    measured.set(side, { idle, idleThreads, settle, settleThreads, perTen });
    const failed = result.outcomes.filter((o) => !o.ok).length;
    if (failed) console.log(`  ${side}: ${failed} settles failed: ${result.outcomes.find((o) => !o.ok)?.reason}`);
  }

  step("stopping both facilitators (each writes its profile)");
  for (const side of SIDES) await children[side].stop();

  const ms = (value: number) => `${value.toFixed(1)} ms`;
  console.log(
    `\nCPU at concurrency 1 on 1-s blocks, ${SETTLES} settles per side, idle ${IDLE_SECONDS} s per side${flags["without-incognito"] ? "; relay402 without incognito (no leaf indexer)" : ""}`,
  );
  console.log("\n| figure | x402 reference | relay402 |");
  console.log("|---|---|---|");
  const both = (label: string, value: (side: Side) => string) =>
    console.log(`| ${label} | ${value("reference")} | ${value("relay402")} |`);
  const of = (side: Side) => measured.get(side) as NonNullable<ReturnType<typeof measured.get>>;
  both("settles that succeeded", (side) => `${windows.get(side)?.latencies.length} of ${SETTLES}`);
  both("settle p50", (side) => ms(percentile(windows.get(side)?.latencies ?? [], 50)));
  both("CPU per settle (user + system, /proc)", (side) => ms(of(side).settle));
  both("CPU per settle, each ten settles in turn", (side) =>
    of(side)
      .perTen.map((v) => v.toFixed(1))
      .join(", "),
  );
  both("CPU per second idle on 1-s blocks (no request)", (side) => ms(of(side).idle));
  const threadNames = new Set(SIDES.flatMap((side) => [...of(side).settleThreads.keys()]));
  for (const name of [...threadNames].sort()) {
    const settle = (side: Side) => (of(side).settleThreads.get(name) ?? 0) / SETTLES;
    const idle = (side: Side) => (of(side).idleThreads.get(name) ?? 0) / IDLE_SECONDS;
    if (SIDES.every((side) => settle(side) < 0.05 && idle(side) < 0.05)) continue;
    both(`thread "${name}": per settle / per idle second`, (side) => `${ms(settle(side))} / ${ms(idle(side))}`);
  }

  for (const side of PROFILE ? SIDES : []) {
    const file = readdirSync(profileDir).find(
      (name) => name.endsWith(".cpuprofile") && profileOfPid(name, children[side].pid),
    );
    if (!file) {
      console.log(`\n${side}: no CPU profile written`);
      continue;
    }
    const profile: CpuProfile = readProfile(join(profileDir, file));
    const lanes = [
      { what: "during the settles", per: "settle", count: SETTLES, window: windows.get(side) },
      { what: "while idle", per: "idle second", count: IDLE_SECONDS, window: idleWindows.get(side) },
    ];
    // "our caller" names relay402's src/ functions: the reference has none of them.
    for (const { what, per, count, window } of lanes)
      for (const by of side === "relay402"
        ? (["function", "file", "our caller"] as const)
        : (["function", "file"] as const)) {
        const rows = selfTimeBy(profile, window as { fromMs: number; toMs: number }, by);
        const sampled = rows.reduce((sum, row) => sum + row.ms, 0);
        console.log(
          `\n${side}: self time by ${by} ${what} (the JavaScript thread, sampled: ${ms(sampled / count)} per ${per})`,
        );
        console.log(`\n| ${by} | self time per ${per} | share |`);
        console.log("|---|---|---|");
        for (const row of rows.slice(0, TOP))
          console.log(`| ${row.name} | ${ms(row.ms / count)} | ${((100 * row.ms) / sampled).toFixed(1)} % |`);
      }
  }
} finally {
  await cleanUp();
}

/** Bun names a profile CPU.<date>.<pid>.cpuprofile. */
function profileOfPid(name: string, pid: number): boolean {
  return name.split(".").includes(String(pid));
}
