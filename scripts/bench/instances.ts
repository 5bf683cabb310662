// `bun run bench:instances [-- --count 1000 --concurrency 200]`: settle throughput of one instance against three
// (issue 14), on 1-s blocks (anvil interval mining), bsc devnet, relay402's own body (the relayer). Three setups,
// one after the other on one devnet, each with the devnet's same three executor keys in total:
//   1 instance on SQLite (all three keys), 1 instance on PostgreSQL (all three, leased),
//   3 instances on one PostgreSQL (one key lease each: keyLeasesPerInstance 1),
// each instance a service in a process of its own. The load generator spreads the requests round robin on the
// client side (request i to instance i % n), as a load balancer would. Prints one row per setup: settles ok/total,
// wall time, settles/s, blocks used, nonce errors, p50/p99 latency. A setup whose start is refused (PostgreSQL
// not available in this version) prints "skipped: <reason>".
//
// Not a test: figures on a shared machine are indicative; compare the rows with each other.
import "../../src/production-env";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Address } from "viem";
import { generatePrivateKey, type PrivateKeyAccount } from "viem/accounts";
import type { ConfigInput } from "../../src/config/schema";
import { devnetChain } from "../devnet/chain";
import { DEVNET_ADMIN_API_KEY, devnetKeys } from "../devnet/keys";
import { startPostgres } from "../postgres/start";
import { benchServiceConfig, type Cleanups, cleanUpOnExit, progress, startBenchDevnet } from "./bench-devnet";
import {
  failureReasons,
  nonceErrors,
  raiseFetchLimit,
  setBlockInterval,
  settlementsPerBlock,
  tokenFunder,
} from "./burst";
import { type Child, startChild } from "./child";
import { eoaPaymentBody } from "./eoa-payment-body";
import { drive, postJson } from "./load";
import { cpuMsOf } from "./proc";
import { percentile } from "./stats";

await raiseFetchLimit();

const { values: flags } = parseArgs({
  args: process.argv.slice(2),
  options: {
    count: { type: "string", default: "1000" },
    concurrency: { type: "string", default: "200" },
  },
});
const COUNT = Number(flags.count);
const CONCURRENCY = Number(flags.concurrency);
const BLOCK_SECONDS = 1;
const EXECUTOR_KEYS = 3;
const PAYERS = 4;
const WARM_UP_SETTLES = 3; // per instance, on automine: JIT, nonce and fee caches, the token's code check

type Setup = { label: string; instances: number; database: "sqlite" | "postgres" };
const SETUPS: Setup[] = [
  { label: "1 instance, SQLite", instances: 1, database: "sqlite" },
  { label: "1 instance, PostgreSQL", instances: 1, database: "postgres" },
  { label: "3 instances, one PostgreSQL", instances: 3, database: "postgres" },
];

const cleanups: Cleanups = [];
const cleanUp = cleanUpOnExit(cleanups);
const step = progress();
const rows: string[] = [];

try {
  step("building contracts, starting the devnet");
  const { devnet, dir } = await startBenchDevnet("instances", cleanups);
  const network = devnet.manifest.networks.bsc;
  const rpcUrl = network.rpcUrl;
  const token = network.tokens.USDT?.address as Address;
  // Every setup's instances are configured with the same three of the devnet's executor keys: one instance sends
  // with all three, three instances lease one each (keyLeasesPerInstance 1), so the total is the same.
  const keys = devnetKeys.executors.slice(0, EXECUTOR_KEYS);

  step("funding payers");
  const fund = tokenFunder({
    chain: devnetChain(network.chainId, "bsc", rpcUrl),
    rpcUrl,
    token,
    spender: network.relayer,
  });
  const payers: PrivateKeyAccount[] = [];
  for (let i = 0; i < PAYERS; i++) payers.push(await fund(generatePrivateKey(), 10n ** 30n, 10n ** 30n));
  let signed = 0;
  const body = () => eoaPaymentBody(payers[signed++ % PAYERS] as PrivateKeyAccount, network.relayer, token);

  // One PostgreSQL for both PostgreSQL setups, a database of its own for each; started on first need.
  let postgres: Awaited<ReturnType<typeof startPostgres>> | undefined;
  const databaseUrl = async (name: string) => {
    if (!postgres) {
      step("starting PostgreSQL");
      postgres = await startPostgres({ quiet: true });
      const started = postgres;
      cleanups.push(() => started.stop());
    }
    return postgres.createDatabase(name);
  };

  const settle = async (url: string, payment: string, signal: AbortSignal) => {
    const { status, json } = await postJson(`${url}/settle`, payment, signal);
    return status === 200 && json.transaction
      ? { ok: true, transaction: json.transaction as string }
      : {
          ok: false,
          reason: `${json.code ?? `HTTP ${status}`}${json.message ? `: ${String(json.message).slice(0, 80)}` : ""}`,
        };
  };

  for (const [index, setup] of SETUPS.entries()) {
    step(`${setup.label}: starting ${setup.instances} service process(es)`);
    const children: Child[] = [];
    const stopAll = async () => {
      for (const child of children.splice(0)) await child.stop();
    };
    cleanups.push(stopAll);
    try {
      const overrides: Partial<ConfigInput> =
        setup.database === "postgres"
          ? {
              databaseUrl: await databaseUrl(`bench_${index}`),
              ...(setup.instances > 1 ? { keyLeasesPerInstance: keys.length / setup.instances } : {}),
            }
          : {};
      // One after the other: each instance takes the key leases the ones before it left free.
      for (let i = 0; i < setup.instances; i++) {
        const config = await benchServiceConfig(
          devnet.manifest,
          "bsc",
          rpcUrl,
          join(dir, `setup-${index}-${i}.sqlite`),
          overrides,
        );
        Object.assign(config.networks.bsc ?? {}, { executorKeys: keys });
        children.push(
          await startChild(join(import.meta.dir, "relay402-process.ts"), {
            RELAY402_BENCH_CONFIG: JSON.stringify(config),
          }),
        );
      }
    } catch (error) {
      await stopAll();
      if (setup.database !== "postgres") throw error;
      const reason = (error as Error).message.split("\n")[0] as string;
      console.log(`  ${setup.label}: skipped: ${reason}`);
      rows.push(`| ${setup.label} | skipped: ${reason} |${" |".repeat(7)}`);
      continue;
    }

    // Which keys each instance sends with (null: every configured key, no leases).
    const held = await Promise.all(
      children.map(async (child) => {
        // The lease counts are operator figures: /health shows them with the admin key only.
        const health = (await (
          await fetch(`${child.url}/health`, { headers: { "x-admin-api-key": DEVNET_ADMIN_API_KEY } })
        ).json()) as any;
        return (health.networks?.bsc?.keyLeases?.held as number | undefined) ?? keys.length;
      }),
    );

    await setBlockInterval(rpcUrl, 0);
    await Promise.all(
      children.map(async (child) => {
        for (let i = 0; i < WARM_UP_SETTLES; i++) await settle(child.url, await body(), AbortSignal.timeout(30_000));
      }),
    );

    // Request i goes to instance i % n: the client-side round robin.
    const bodies = await Promise.all(
      Array.from({ length: COUNT }, async (_, i) => ({
        url: (children[i % children.length] as Child).url,
        payment: await body(),
      })),
    );
    await setBlockInterval(rpcUrl, BLOCK_SECONDS);
    await Bun.sleep(BLOCK_SECONDS * 1000);
    step(`${setup.label}: settle ×${COUNT}, concurrency ${CONCURRENCY}, 1-s blocks (keys held: ${held.join(" + ")})`);
    const cpuBefore = children.map((child) => cpuMsOf(child.pid));
    const r = await drive(bodies, CONCURRENCY, ({ url, payment }, signal) => settle(url, payment, signal), 120_000);
    const serviceCpuMs = children.reduce((sum, child, i) => sum + cpuMsOf(child.pid) - (cpuBefore[i] as number), 0);
    await setBlockInterval(rpcUrl, 0);
    await stopAll();

    const latencies = r.outcomes.filter((o) => o.ok).map((o) => o.latency);
    const ok = latencies.length;
    const seconds = r.wallMs / 1000;
    const blocks = await settlementsPerBlock(rpcUrl, r.outcomes);
    const nonce = nonceErrors(r.outcomes);
    const ms = (value: number) => `${value.toLocaleString("en-US", { maximumFractionDigits: 0 })} ms`;
    rows.push(
      `| ${setup.label} | ${held.join(" + ")} | ${ok}/${COUNT} | ${seconds.toFixed(2)} s | ${(ok / seconds).toFixed(1)} | ${blocks.length} | ${nonce} | ${ms(percentile(latencies, 50))} | ${ms(percentile(latencies, 99))} |`,
    );
    console.log(
      `  ${setup.label}: ${ok}/${COUNT} in ${seconds.toFixed(2)} s${r.notStarted ? `, ${r.notStarted} not started (deadline)` : ""}; settlements per block ${blocks.join(", ")}; service CPU ${(serviceCpuMs / 1000).toFixed(1)} s ${failureReasons(r.outcomes)}`,
    );
  }

  console.log(
    `\nsettle ×${COUNT} at concurrency ${CONCURRENCY}, 1-s blocks, bsc devnet, ${keys.length} executor keys in every setup (one run)\n`,
  );
  console.log(
    "| setup | executor keys held | settles ok/total | wall time | settles/s | blocks used | nonce errors | p50 | p99 |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const row of rows) console.log(row);
  console.log("\n(one shared machine: figures are indicative, compare the rows with each other)");
} finally {
  await cleanUp();
}
// The services' and the clients' sockets would keep the process alive.
process.exit(0);
