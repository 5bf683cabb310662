// `bun run bench:x402 [-- --runs 3]`: relay402 against the x402 reference facilitator (@x402/core +
// @x402/evm's exact EIP-3009 scheme) in one run, on the same devnet chain (base, the USDC-like TestUSDC with
// the USDC domain "USD Coin"/"2"), with the same load generator and the same x402 v2 bodies signed by
// @x402/evm's own client. Each facilitator runs in a child process of its own (its CPU time and peak RSS are
// read from /proc) and reaches the chain through its own counting JSON-RPC proxy. Prints one table: both
// columns and the ratio relay402 / reference, each figure the median of --runs runs.
//
// Not a test: figures on a shared machine are indicative; compare the columns with each other.
import "../../src/production-env";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { x402Client } from "@x402/core/client";
import type { PaymentRequirements } from "@x402/core/types";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  type Hex,
  http,
  maxUint256,
  toHex,
} from "viem";
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { erc20Abi } from "../../src/chain/abis";
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from "../../src/settlement/typed-data";
import { devnetChain } from "../devnet/chain";
import { DEVNET_MNEMONIC } from "../devnet/keys";
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
import { drive, type Outcome, postJson } from "./load";
import { cpuMsOf, peakRssMiBOf } from "./proc";
import { startRpcCounter } from "./rpc-counter";
import { median, percentile } from "./stats";

// The load generator and both counting proxies run in this process (burst.ts says why it needs more fetches at once).
await raiseFetchLimit();

const { values: flags } = parseArgs({
  args: process.argv.slice(2),
  options: {
    runs: { type: "string", default: "1" },
    verifies: { type: "string", default: "4000" },
    "settles-c1": { type: "string", default: "30" },
    "settles-c1-blocks": { type: "string", default: "10" },
    "settles-c20": { type: "string", default: "100" },
    burst: { type: "string", default: "1000" },
    "burst-concurrency": { type: "string", default: "200" },
    "reference-polling-ms": { type: "string", default: "" },
  },
});
const RUNS = Number(flags.runs);
const VERIFIES = Number(flags.verifies);
const SETTLES_C1 = Number(flags["settles-c1"]);
const SETTLES_C1_BLOCKS = Number(flags["settles-c1-blocks"]);
const SETTLES_C20 = Number(flags["settles-c20"]);
const BURST = Number(flags.burst);
const BURST_CONCURRENCY = Number(flags["burst-concurrency"]);
const BLOCK_SECONDS = 1;
const AMOUNT = 1000n; // 0.001 of the 6-decimal token
/** The reference's signer: the first key of the test mnemonic after every key the devnet gives a role. */
const REFERENCE_KEY_INDEX = 24;

type Side = "relay402" | "reference";
const SIDES: Side[] = ["relay402", "reference"];

// ---- what the table shows: rows, each one figure per side per run ----
type Row = { label: string; unit: string; digits: number; sides?: Side[] };
const rows = new Map<string, Row>();
const samples = new Map<string, Record<Side, number[]>>();
const details: string[] = [];
function record(key: string, row: Row, side: Side, value: number) {
  if (!rows.has(key)) rows.set(key, row);
  const entry = samples.get(key) ?? { relay402: [], reference: [] };
  entry[side].push(value);
  samples.set(key, entry);
}

const cleanups: Cleanups = [];
const cleanUp = cleanUpOnExit(cleanups);

const step = progress();

try {
  step("building contracts, starting the devnet");
  const { devnet, dir } = await startBenchDevnet("vs-x402", cleanups);
  const network = devnet.manifest.networks.base;
  const usdc = network.tokens.USDC?.address as Address;

  const chain = devnetChain(network.chainId, "base", network.rpcUrl);
  const transport = http(network.rpcUrl);
  const publicClient = createPublicClient({ chain, transport });
  const testClient = createTestClient({ chain, transport, mode: "anvil" });

  // ---- the two facilitators, each behind its own RPC counter ----
  const counters = { relay402: startRpcCounter(network.rpcUrl), reference: startRpcCounter(network.rpcUrl) };
  cleanups.push(() => counters.relay402.stop());
  cleanups.push(() => counters.reference.stop());

  const config = await benchServiceConfig(devnet.manifest, "base", counters.relay402.url, join(dir, "relay402.sqlite"));

  const referenceKey = toHex(
    mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: REFERENCE_KEY_INDEX }).getHdKey().privateKey as Uint8Array,
  );
  const referenceAddress = privateKeyToAccount(referenceKey).address;
  await testClient.setBalance({ address: referenceAddress, value: 10n ** 21n });

  step("devnet up; starting relay402 and the x402 reference");
  const children = {} as Record<Side, Child>;
  const relay402Child = startChild(join(import.meta.dir, "relay402-process.ts"), {
    RELAY402_BENCH_CONFIG: JSON.stringify(config),
  });
  const referenceChild = startChild(join(import.meta.dir, "x402-reference-process.ts"), {
    REFERENCE_RPC_URL: counters.reference.url,
    REFERENCE_KEY: referenceKey,
    REFERENCE_POLLING_MS: flags["reference-polling-ms"] ?? "",
  });
  // Both starts are awaited before either can throw, so that a started child is always stopped.
  const started = await Promise.allSettled([relay402Child, referenceChild]);
  for (const result of started) if (result.status === "fulfilled") cleanups.push(() => result.value.stop());
  for (const result of started) if (result.status === "rejected") throw result.reason;
  children.relay402 = (started[0] as PromiseFulfilledResult<Child>).value;
  children.reference = (started[1] as PromiseFulfilledResult<Child>).value;

  step("both facilitators listen; funding payers");
  // ---- payers, merchant, payments ----
  const merchant = privateKeyToAccount(generatePrivateKey()).address;
  const fund = tokenFunder({ chain, rpcUrl: network.rpcUrl, token: usdc, spender: network.relayer });
  const payerKeys = Array.from({ length: 4 }, () => generatePrivateKey());
  for (const key of payerKeys) await fund(key, 10n ** 12n);
  // The merchant already holds the token, as a shop does: every settle writes a warm balance.
  await fund(generatePrivateKey(), 10n).then(async (account) => {
    const hash = await createWalletClient({ chain, transport, account }).writeContract({
      address: usdc,
      abi: erc20Abi,
      functionName: "transfer",
      args: [merchant, 10n],
    });
    await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  });

  const x402Clients = payerKeys.map((key) => {
    const client = registerExactEvmScheme(new x402Client(), { signer: privateKeyToAccount(key) });
    client.setSpendControls({ allowedAssets: true }); // the devnet token is not one of x402's default assets
    return client;
  });
  const requirements: PaymentRequirements = {
    scheme: "exact",
    network: `eip155:${network.chainId}`,
    asset: usdc,
    amount: AMOUNT.toString(),
    payTo: merchant,
    maxTimeoutSeconds: 3600,
    extra: { name: "USD Coin", version: "2" },
  };
  const resource = { url: "http://shop.test/item", description: "an item", mimeType: "text/plain" };
  let signed = 0;
  const x402Body = async () => {
    const client = x402Clients[signed++ % x402Clients.length] as x402Client;
    const paymentPayload = await client.createPaymentPayload({ x402Version: 2, resource, accepts: [requirements] });
    return JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements: requirements });
  };
  const x402Bodies = (count: number) => Promise.all(Array.from({ length: count }, x402Body));

  const verify = (side: Side) => async (body: string, signal: AbortSignal) => {
    const { json } = await postJson(`${children[side].url}/verify`, body, signal);
    return { ok: json.isValid === true, reason: json.invalidReason ?? json.error };
  };
  const settle = (side: Side) => async (body: string, signal: AbortSignal) => {
    const { status, json } = await postJson(`${children[side].url}/settle`, body, signal);
    return json.success === true
      ? { ok: true, transaction: json.transaction as string }
      : { ok: false, reason: json.errorReason ?? json.error ?? json.code ?? `HTTP ${status}` };
  };

  const gasOf = async (outcomes: Outcome[], count = 10) => {
    const hashes = outcomes.flatMap((o) => (o.ok && o.transaction ? [o.transaction as Hex] : [])).slice(0, count);
    const receipts = await Promise.all(hashes.map((hash) => publicClient.getTransactionReceipt({ hash })));
    return median(receipts.map((r) => Number(r.gasUsed)));
  };
  const perMethod = (calls: Record<string, number>, per: number) =>
    Object.entries(calls)
      .sort(([, a], [, b]) => b - a)
      .map(([method, n]) => `${method} ${(n / per).toFixed(2)}`)
      .join(", ");

  /** One measured phase on one side: the load, its facilitator's CPU and JSON-RPC use. */
  async function phase(
    side: Side,
    bodies: string[],
    concurrency: number,
    kind: "verify" | "settle",
    deadlineMs: number,
  ) {
    step(`${side}: ${kind} ×${bodies.length}, concurrency ${concurrency}`);
    const pid = children[side].pid;
    counters[side].reset();
    const cpuBefore = cpuMsOf(pid);
    const anvilBefore = anvilCpu();
    const generatorBefore = process.cpuUsage();
    const result = await drive(bodies, concurrency, kind === "verify" ? verify(side) : settle(side), deadlineMs);
    const cpuMs = cpuMsOf(pid) - cpuBefore;
    const anvilCpuMs = anvilCpu() - anvilBefore;
    const generator = process.cpuUsage(generatorBefore);
    // This process: the load generator and both RPC counters; if it is as busy as the wall time, it is the limit.
    const generatorCpuMs = (generator.user + generator.system) / 1000;
    const rpc = counters[side].snapshot();
    const latencies = result.outcomes.filter((o) => o.ok).map((o) => o.latency);
    const ok = latencies.length;
    return { ...result, cpuMs, anvilCpuMs, generatorCpuMs, rpc, latencies, ok };
  }

  // The base chain's anvil (its CPU during the burst tells whether the node is the limit).
  const anvilPid = devnet.pids.find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8")
        .split("\0")
        .join(" ")
        .includes(`--port ${new URL(network.rpcUrl).port}`);
    } catch {
      return false;
    }
  });
  const anvilCpu = () => (anvilPid ? cpuMsOf(anvilPid) : Number.NaN);

  const setBlocks = (interval: number) => setBlockInterval(network.rpcUrl, interval);

  console.log(
    `relay402 pid ${children.relay402.pid}, x402 reference pid ${children.reference.pid} (signer ${referenceAddress}, viem receipt polling ${children.reference.info.receiptPollingMs} ms); ${RUNS} run(s)`,
  );

  // Warm-up: JIT, nonce and fee caches, the token's code check. The verifies run as the measured phase does (16
  // clients), enough of them for both runtimes' JIT to have compiled the verify path: after 50 sequential ones,
  // relay402's first run was a quarter slower than its third.
  for (const side of SIDES) {
    const body = await x402Body();
    await drive(Array(1000).fill(body), 16, verify(side), 120_000);
    for (let i = 0; i < 3; i++) await settle(side)(await x402Body(), AbortSignal.timeout(30_000));
  }

  const ms = { unit: "ms", digits: 1 };
  for (let run = 1; run <= RUNS; run++) {
    console.log(`\nrun ${run}/${RUNS}`);
    // Which side goes first alternates between runs, so neither always meets the warmer chain.
    const order: Side[] = run % 2 ? ["relay402", "reference"] : ["reference", "relay402"];
    await setBlocks(0);

    // /verify, 16 clients, the same valid payment over and over.
    for (const side of order) {
      const body = await x402Body();
      const r = await phase(side, Array(VERIFIES).fill(body), 16, "verify", 120_000);
      const seconds = r.wallMs / 1000;
      record("verify.tput", { label: "/verify throughput, 16 clients", unit: "/s", digits: 0 }, side, r.ok / seconds);
      record("verify.p50", { label: "/verify p50, 16 clients", ...ms }, side, percentile(r.latencies, 50));
      record("verify.p99", { label: "/verify p99, 16 clients", ...ms }, side, percentile(r.latencies, 99));
      record("cpu.verify", { label: "facilitator CPU per verify", unit: "ms", digits: 2 }, side, r.cpuMs / r.ok);
      record(
        "rpc.verify",
        { label: "JSON-RPC round trips per verify", unit: "", digits: 2 },
        side,
        r.rpc.roundTrips / r.ok,
      );
      if (run === RUNS) details.push(`${side}, verify: calls per verify by method: ${perMethod(r.rpc.calls, r.ok)}`);
      console.log(
        `  ${side} verify: ${r.ok}/${VERIFIES} valid in ${seconds.toFixed(1)} s; CPU: ${side} ${(r.cpuMs / 1000).toFixed(1)} s, load generator and RPC counters ${(r.generatorCpuMs / 1000).toFixed(1)} s, anvil ${(r.anvilCpuMs / 1000).toFixed(1)} s ${failureReasons(r.outcomes)}`,
      );
    }

    const settleRows = async (mode: string, count: number, concurrency: number, gas: boolean) => {
      for (const side of order) {
        const bodies = await x402Bodies(count);
        const r = await phase(side, bodies, concurrency, "settle", 180_000 + count * 2_000);
        const tag = `${mode}.c${concurrency}`;
        const label = `settle ×${count}, concurrency ${concurrency}, ${mode}`;
        record(`${tag}.p50`, { label: `${label}: p50`, ...ms }, side, percentile(r.latencies, 50));
        record(`${tag}.p99`, { label: `${label}: p99`, ...ms }, side, percentile(r.latencies, 99));
        record(`${tag}.ok`, { label: `${label}: succeeded of ${count}`, unit: "", digits: 0 }, side, r.ok);
        record(
          `cpu.${tag}`,
          { label: `facilitator CPU per settle, c${concurrency}, ${mode}`, ...ms },
          side,
          r.cpuMs / count,
        );
        if (concurrency === 1) {
          const trips = r.rpc.roundTrips / count;
          record(
            `rpc.${tag}`,
            { label: `JSON-RPC round trips per settle, c1, ${mode}`, unit: "", digits: 2 },
            side,
            trips,
          );
          if (run === RUNS)
            details.push(
              `${side}, c1, ${mode}: ${trips.toFixed(2)} round trips per settle; calls per settle by method: ${perMethod(r.rpc.calls, count)}`,
            );
        }
        if (gas)
          record(
            "gas.x402",
            { label: "gas per settle, x402 EIP-3009 body (token's transferWithAuthorization)", unit: "", digits: 0 },
            side,
            await gasOf(r.outcomes),
          );
        console.log(
          `  ${side} ${label}: ${r.ok}/${count} in ${(r.wallMs / 1000).toFixed(1)} s${r.notStarted ? `, ${r.notStarted} not started (deadline)` : ""} ${failureReasons(r.outcomes)}`,
        );
      }
    };
    await settleRows("automine", SETTLES_C1, 1, true);
    await settleRows("automine", SETTLES_C20, 20, false);

    // relay402's own body (the relayer, finite and max allowance) against the native EIP-3009 transfer.
    if (run === 1) {
      for (const [key, label, allowance] of [
        ["gas.relayer.finite", "gas per settle, relay402 body via the relayer, finite allowance", 10n ** 12n],
        ["gas.relayer.max", "gas per settle, relay402 body via the relayer, max allowance", maxUint256],
      ] as const) {
        const payerKey = generatePrivateKey();
        const payer = await fund(payerKey, 10n ** 12n, allowance);
        const gas: number[] = [];
        for (let i = 0; i < 5; i++) {
          const now = Math.floor(Date.now() / 1000);
          const message = {
            token: usdc,
            from: payer.address,
            to: merchant,
            value: AMOUNT,
            validAfter: BigInt(now - 60),
            validBefore: BigInt(now + 3600),
            nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
          };
          const signature = await payer.signTypedData({
            domain: { name: "relay402", version: "1", chainId: network.chainId, verifyingContract: network.relayer },
            types: TRANSFER_WITH_AUTHORIZATION_TYPES,
            primaryType: "TransferWithAuthorization",
            message,
          });
          const body = JSON.stringify({
            paymentPayload: {
              token: usdc,
              payload: {
                authorization: {
                  ...message,
                  value: message.value.toString(),
                  validAfter: Number(message.validAfter),
                  validBefore: Number(message.validBefore),
                },
                signature,
              },
            },
            paymentRequirements: { network: "base", relayerContract: network.relayer },
          });
          const { status, json } = await postJson(`${children.relay402.url}/settle`, body, AbortSignal.timeout(30_000));
          if (status !== 200 || !json.transaction) {
            details.push(`${label}: settle refused (${status} ${json.code ?? JSON.stringify(json).slice(0, 120)})`);
            break;
          }
          gas.push(Number((await publicClient.getTransactionReceipt({ hash: json.transaction })).gasUsed));
        }
        record(key, { label, unit: "", digits: 0, sides: ["relay402"] }, "relay402", median(gas));
      }
    }

    await setBlocks(BLOCK_SECONDS);
    await Bun.sleep(BLOCK_SECONDS * 1000);
    await settleRows("1-s blocks", SETTLES_C1_BLOCKS, 1, false);
    await settleRows("1-s blocks", SETTLES_C20, 20, false);

    // Peak RSS (VmHWM, the peak so far) before the first burst below, which only relay402 runs.
    if (run === 1)
      for (const side of SIDES)
        record(
          "rss",
          { label: "peak RSS (before the burst)", unit: "MiB", digits: 0 },
          side,
          peakRssMiBOf(children[side].pid),
        );

    // The burst: BURST settles at BURST_CONCURRENCY on 1-s blocks, relay402 only.
    if (BURST > 0) {
      const bodies = await x402Bodies(BURST);
      const r = await phase("relay402", bodies, BURST_CONCURRENCY, "settle", 120_000);
      const { anvilCpuMs } = r;
      const nonceErrorCount = nonceErrors(r.outcomes);
      const bound = 1.2 * Math.ceil(BURST / BURST_CONCURRENCY) * BLOCK_SECONDS;
      const label = `settle ×${BURST}, concurrency ${BURST_CONCURRENCY}, 1-s blocks`;
      const relay = ["relay402"] as Side[];
      record(
        "burst.ok",
        { label: `${label}: succeeded of ${BURST}`, unit: "", digits: 0, sides: relay },
        "relay402",
        r.ok,
      );
      record(
        "burst.nonce",
        { label: `${label}: nonce errors`, unit: "", digits: 0, sides: relay },
        "relay402",
        nonceErrorCount,
      );
      record(
        "burst.wall",
        { label: `${label}: wall time (bound ${bound.toFixed(1)} s)`, unit: "s", digits: 2, sides: relay },
        "relay402",
        r.wallMs / 1000,
      );
      record("burst.p99", { label: `${label}: p99`, ...ms, sides: relay }, "relay402", percentile(r.latencies, 99));
      record(
        "burst.cpu",
        { label: `${label}: facilitator CPU per settle`, ...ms, sides: relay },
        "relay402",
        r.cpuMs / BURST,
      );
      const blocks = await settlementsPerBlock(network.rpcUrl, r.outcomes);
      if (run === RUNS)
        details.push(
          `relay402 burst: ${(r.rpc.roundTrips / BURST).toFixed(2)} round trips per settle; calls per settle by method: ${perMethod(r.rpc.calls, BURST)}`,
          `relay402 burst, settlements per block: ${blocks.join(", ")}`,
        );
      record(
        "burst.blocks",
        { label: `${label}: blocks used`, unit: "", digits: 0, sides: relay },
        "relay402",
        blocks.length,
      );
      console.log(
        `  relay402 ${label}: ${r.ok}/${BURST} in ${(r.wallMs / 1000).toFixed(2)} s over ${blocks.length} blocks; ${nonceErrorCount} nonce errors; CPU: relay402 ${(r.cpuMs / 1000).toFixed(1)} s, load generator and RPC counters ${(r.generatorCpuMs / 1000).toFixed(1)} s, anvil ${(anvilCpuMs / 1000).toFixed(1)} s ${failureReasons(r.outcomes)}`,
      );
      if (run === RUNS)
        record(
          "rss.burst",
          { label: "peak RSS after the burst", unit: "MiB", digits: 0, sides: relay },
          "relay402",
          peakRssMiBOf(children.relay402.pid),
        );
    }
  }

  // ---- the table ----
  const format = (value: number, row: Row) =>
    Number.isFinite(value)
      ? `${value.toLocaleString("en-US", { maximumFractionDigits: row.digits, minimumFractionDigits: row.digits })}${row.unit && row.unit !== "/s" ? ` ${row.unit}` : row.unit}`
      : "–";
  console.log(
    `\nrelay402 vs the x402 reference facilitator (@x402/core + @x402/evm 2.27, exact EIP-3009), base devnet, ${RUNS === 1 ? "one run" : `median of ${RUNS} runs`}`,
  );
  console.log("\n| figure | x402 reference | relay402 | ratio relay402 / reference |");
  console.log("|---|---|---|---|");
  // Grouped as the issue lists them: verify, settle by mode and concurrency, RPC, CPU, gas, memory, the burst.
  const groups = [
    "verify.",
    "automine.c1.",
    "automine.c20.",
    "1-s blocks.c1.",
    "1-s blocks.c20.",
    "rpc.",
    "cpu.",
    "gas.",
  ];
  const groupOf = (key: string) => {
    const index = groups.findIndex((prefix) => key.startsWith(prefix));
    return index === -1 ? groups.length + (key.startsWith("burst.") ? 1 : 0) : index;
  };
  const ordered = [...rows].sort(([a], [b]) => groupOf(a) - groupOf(b));
  for (const [key, row] of ordered) {
    const entry = samples.get(key) as Record<Side, number[]>;
    const relay = median(entry.relay402);
    const reference = median(entry.reference);
    const ratio =
      Number.isFinite(relay) && Number.isFinite(reference) && reference !== 0
        ? `${(relay / reference).toFixed(2)}×`
        : "";
    console.log(`| ${row.label} | ${format(reference, row)} | ${format(relay, row)} | ${ratio} |`);
  }
  const native = median(samples.get("gas.x402")?.reference ?? []);
  const finite = median(samples.get("gas.relayer.finite")?.relay402 ?? []);
  const max = median(samples.get("gas.relayer.max")?.relay402 ?? []);
  if (Number.isFinite(native) && Number.isFinite(finite))
    console.log(
      `\ngas, relay402's relayer / native EIP-3009 (reference): finite allowance ${(finite / native).toFixed(2)}×, max allowance ${(max / native).toFixed(2)}×`,
    );

  // The issue's targets (ratios relay402 / reference), each checked against the medians above.
  const figure = (key: string, side: Side) => median(samples.get(key)?.[side] ?? []);
  const ratioOf = (key: string) => figure(key, "relay402") / figure(key, "reference");
  const targets: [string, number, (value: number) => boolean, string][] = [
    ["settle p50, c1, automine: ratio ≤ 1.05", ratioOf("automine.c1.p50"), (v) => v <= 1.05, "×"],
    ["settle p50, c1, 1-s blocks: ratio ≤ 1.05", ratioOf("1-s blocks.c1.p50"), (v) => v <= 1.05, "×"],
    ["CPU per settle, c1, automine: ratio ≤ 1.05", ratioOf("cpu.automine.c1"), (v) => v <= 1.05, "×"],
    ["CPU per settle, c1, 1-s blocks: ratio ≤ 1.05", ratioOf("cpu.1-s blocks.c1"), (v) => v <= 1.05, "×"],
    [
      "relay402 JSON-RPC round trips per settle, c1, automine ≤ 3",
      figure("rpc.automine.c1", "relay402"),
      (v) => v <= 3,
      "",
    ],
    [
      "relay402 JSON-RPC round trips per settle, c1, 1-s blocks ≤ 3",
      figure("rpc.1-s blocks.c1", "relay402"),
      (v) => v <= 3,
      "",
    ],
    ["gas, relayer (finite allowance) / native EIP-3009 ≤ 1.20", finite / native, (v) => v <= 1.2, "×"],
    ["/verify throughput ratio ≥ 5", ratioOf("verify.tput"), (v) => v >= 5, "×"],
    [
      `settle ×${SETTLES_C20}, c20, 1-s blocks: all succeed`,
      figure("1-s blocks.c20.ok", "relay402"),
      (v) => v === SETTLES_C20,
      "",
    ],
  ];
  if (BURST > 0) {
    const bound = 1.2 * Math.ceil(BURST / BURST_CONCURRENCY) * BLOCK_SECONDS;
    targets.push(
      [`settle ×${BURST}, c${BURST_CONCURRENCY}: all succeed`, figure("burst.ok", "relay402"), (v) => v === BURST, ""],
      [
        `settle ×${BURST}, c${BURST_CONCURRENCY}: no nonce error`,
        figure("burst.nonce", "relay402"),
        (v) => v === 0,
        "",
      ],
      [
        `settle ×${BURST}, c${BURST_CONCURRENCY}: wall ≤ ${bound.toFixed(1)} s`,
        figure("burst.wall", "relay402"),
        (v) => v <= bound,
        " s",
      ],
    );
  }
  console.log("\nissue 13's targets:");
  for (const [label, value, met, unit] of targets)
    console.log(
      `  ${Number.isFinite(value) ? (met(value) ? "met    " : "not met") : "n/a    "}  ${label} (${Number.isFinite(value) ? `${value.toFixed(2)}${unit}` : "–"})`,
    );
  if (details.length) console.log(`\n${details.join("\n")}`);
  console.log("\n(one shared machine: figures are indicative, compare the columns with each other)");
} finally {
  await cleanUp();
}
