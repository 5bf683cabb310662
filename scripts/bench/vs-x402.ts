// `bun run bench:x402 [-- --runs 3]`: relay402 against the x402 reference facilitator (@x402/core +
// @x402/evm's exact EIP-3009 scheme) in one run, on the same devnet chain (base, the USDC-like TestUSDC with
// the USDC domain "USD Coin"/"2"), with the same load generator and the same x402 v2 bodies signed by
// @x402/evm's own client. Each facilitator runs in a child process of its own (its CPU time and peak RSS are
// read from /proc) and reaches the chain through its own counting JSON-RPC proxy. Prints one table: both
// columns and the ratio relay402 / reference, each figure the median of --runs runs. The sponsored Permit2 lanes
// (EIP-2612 permits, funded approves) against the plain Permit2 settle: vs-x402-sponsored.ts.
//
// Not a test: figures on a shared machine are indicative; compare the columns with each other.
import "../../src/production-env";
import { erc20Abi } from "@relay402/client/wire/abis";
import { type Address, createPublicClient, createWalletClient, type Hex, http, maxUint256 } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { devnetChain } from "../devnet/chain";
import { type Cleanups, cleanUpOnExit, progress, startBenchDevnet } from "./bench-devnet";
import {
  failureReasons,
  nonceErrors,
  raiseFetchLimit,
  setBlockInterval,
  settlementsPerBlock,
  tokenFunder,
} from "./burst";
import { eoaPaymentBody } from "./eoa-payment-body";
import { drive, type Outcome, settleAt, verifyAt } from "./load";
import { cpuMsOf, peakRssMiBOf, pidListeningOn } from "./proc";
import { relayerGasRows } from "./relayer-gas";
import { median, percentile, perMethod } from "./stats";
import { startFacilitators } from "./vs-x402-facilitators";
import * as flag from "./vs-x402-flags";
import { createReport, SIDES, type Side } from "./vs-x402-report";
import { sponsoredLanes } from "./vs-x402-sponsored";
import { x402BodySigner } from "./x402-bodies";

// The load generator and both counting proxies run in this process (burst.ts says why it needs more fetches at once).
await raiseFetchLimit();

const BLOCK_SECONDS = 1;
const AMOUNT = 1000n; // 0.001 of the 6-decimal token

const { record, details, printReport } = createReport();

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

  step("devnet up; starting relay402 and the x402 reference");
  const { counters, children, referenceAddress } = await startFacilitators({
    manifest: devnet.manifest,
    dir,
    cleanups,
    referencePollingMs: flag.REFERENCE_POLLING_MS,
    relay402From: flag.RELAY402_FROM,
  });

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

  const { x402Body, x402Bodies } = x402BodySigner(payerKeys, {
    scheme: "exact",
    network: `eip155:${network.chainId}`,
    asset: usdc,
    amount: AMOUNT.toString(),
    payTo: merchant,
    maxTimeoutSeconds: 3600,
    extra: { name: "USD Coin", version: "2" },
  });

  const verify = (side: Side) => verifyAt(children[side].url);
  const settle = (side: Side) => settleAt(children[side].url);

  const gasOf = async (outcomes: Outcome[], count = 10) => {
    const hashes = outcomes.flatMap((o) => (o.ok && o.transaction ? [o.transaction as Hex] : [])).slice(0, count);
    const receipts = await Promise.all(hashes.map((hash) => publicClient.getTransactionReceipt({ hash })));
    return median(receipts.map((r) => Number(r.gasUsed)));
  };
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
    // Where each side's memory grows: its peak so far after every phase (the table keeps the peak before the burst).
    step(`${side}: peak RSS so far ${peakRssMiBOf(pid).toFixed(0)} MiB`);
    return { ...result, cpuMs, anvilCpuMs, generatorCpuMs, rpc, latencies, ok };
  }

  const recordPeakRss = (key: string, label: string) => {
    for (const side of SIDES) record(key, { label, unit: "MiB", digits: 0 }, side, peakRssMiBOf(children[side].pid));
  };

  // The base chain's anvil (its CPU during the burst tells whether the node is the limit).
  const anvilPid = pidListeningOn(devnet.pids, new URL(network.rpcUrl).port);
  const anvilCpu = () => (anvilPid ? cpuMsOf(anvilPid) : Number.NaN);

  const setBlocks = (interval: number) => setBlockInterval(network.rpcUrl, interval);

  console.log(
    `relay402 (${flag.RELAY402_FROM}) pid ${children.relay402.pid}, x402 reference pid ${children.reference.pid} (signer ${referenceAddress}, viem receipt polling ${children.reference.info.receiptPollingMs} ms); ${flag.RUNS} run(s)`,
  );

  // Warm-up: JIT, nonce and fee caches, the token's code check. The verifies run as the measured phase does (16
  // clients), enough of them for both runtimes' JIT to have compiled the verify path: after 50 sequential ones,
  // relay402's first run was a quarter slower than its third.
  for (const side of SIDES) {
    const body = await x402Body();
    await drive(Array(1000).fill(body), 16, verify(side), 120_000);
    for (let i = 0; i < 3; i++) await settle(side)(await x402Body(), AbortSignal.timeout(30_000));
  }

  // The EOA lane's payer approves the relayer once; its one body is verified over and over, like the x402 one.
  const onBase = { network: "base", chainId: network.chainId } as const;
  const eoaVerifyBody = await eoaPaymentBody(
    await fund(generatePrivateKey(), 10n ** 12n, maxUint256),
    network.relayer,
    usdc,
    {
      ...onBase,
      to: merchant,
      value: AMOUNT,
    },
  );

  const tokens = { plain: network.tokens.USDT?.address as Address, permit: network.tokens.PUSD?.address as Address };
  const sponsored = {
    chain,
    rpcUrl: network.rpcUrl,
    publicClient,
    tokens,
    merchant,
    relayer: network.relayer,
    children,
    counters,
    record,
    details,
  };

  const ms = { unit: "ms", digits: 1 };
  for (let run = 1; run <= flag.RUNS; run++) {
    console.log(`\nrun ${run}/${flag.RUNS}`);
    // Which side goes first alternates between runs, so neither always meets the warmer chain.
    const order: Side[] = run % 2 ? ["relay402", "reference"] : ["reference", "relay402"];
    await setBlocks(0);

    // The sponsored Permit2 lanes (vs-x402-sponsored.ts), one settle at a time; `--only sponsored` runs them alone.
    const lanes = () =>
      sponsoredLanes({ ...sponsored, settles: flag.SPONSORED_SETTLES, order, lastRun: run === flag.RUNS, step });
    if (flag.SPONSORED_ONLY) {
      await lanes();
      continue;
    }

    // /verify, 16 clients, the same valid payment over and over.
    for (const side of order) {
      const body = await x402Body();
      const r = await phase(side, Array(flag.VERIFIES).fill(body), 16, "verify", 120_000);
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
      if (run === flag.RUNS)
        details.push(`${side}, verify: calls per verify by method: ${perMethod(r.rpc.calls, r.ok)}`);
      console.log(
        `  ${side} verify: ${r.ok}/${flag.VERIFIES} valid in ${seconds.toFixed(1)} s; CPU: ${side} ${(r.cpuMs / 1000).toFixed(1)} s, load generator and RPC counters ${(r.generatorCpuMs / 1000).toFixed(1)} s, anvil ${(r.anvilCpuMs / 1000).toFixed(1)} s ${failureReasons(r.outcomes)}`,
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
          if (run === flag.RUNS)
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
    await settleRows("automine", flag.SETTLES_C1, 1, true);
    // The peak once both sides have done the same x402 work (the warm-up, /verify, the c1 settles, each of which
    // succeeds on both): the sponsored lanes and the c20 rows below are not (relay402 runs lanes the reference has no
    // counterpart of, and most of the reference's c20 settles fail at once).
    if (run === 1) recordPeakRss("rss.same", "peak RSS after /verify and the c1 settles (the same work on both sides)");
    // After that sample: relay402 runs lanes the reference has none of (funded approves, its own EOA bodies).
    await lanes();
    await settleRows("automine", flag.SETTLES_C20, 20, false);

    // relay402's own body (the relayer, finite and max allowance) against the native EIP-3009 transfer.
    if (run === 1) {
      const settleUrl = `${children.relay402.url}/settle`;
      for (const row of await relayerGasRows({
        fund,
        settleUrl,
        relayer: network.relayer,
        usdc,
        merchant,
        chainId: network.chainId,
        publicClient,
        amount: AMOUNT,
      })) {
        if (row.refused) details.push(row.refused);
        record(row.key, { label: row.label, unit: "", digits: 0, sides: ["relay402"] }, "relay402", row.gas);
      }
    }

    await setBlocks(BLOCK_SECONDS);
    await Bun.sleep(BLOCK_SECONDS * 1000);
    await settleRows("1-s blocks", flag.SETTLES_C1_BLOCKS, 1, false);
    await settleRows("1-s blocks", flag.SETTLES_C20, 20, false);

    // Peak RSS (VmHWM, the peak so far) before the first burst below, which only relay402 runs.
    if (run === 1) recordPeakRss("rss", "peak RSS (before the burst)");

    // /verify of relay402's own EOA body (the relayer's signature, balance and allowance), relay402 only: the
    // reference has no such body, so its x402 verify throughput is the yardstick. It runs after run 1 has read the
    // peak RSS before the burst.
    if (run === 1) await drive(Array(1000).fill(eoaVerifyBody), 16, verify("relay402"), 120_000);
    const eoa = await phase("relay402", Array(flag.VERIFIES).fill(eoaVerifyBody), 16, "verify", 120_000);
    const relayOnly = { sides: ["relay402"] as Side[] };
    const eoaLabel = "/verify of relay402's EOA body, 16 clients";
    const eoaThroughput = eoa.ok / (eoa.wallMs / 1000);
    record(
      "verify.eoa.tput",
      { label: `${eoaLabel}: throughput`, unit: "/s", digits: 0, ...relayOnly },
      "relay402",
      eoaThroughput,
    );
    record(
      "verify.eoa.p50",
      { label: `${eoaLabel}: p50`, ...ms, ...relayOnly },
      "relay402",
      percentile(eoa.latencies, 50),
    );
    record(
      "cpu.verify.eoa",
      { label: "facilitator CPU per EOA verify", unit: "ms", digits: 2, ...relayOnly },
      "relay402",
      eoa.cpuMs / eoa.ok,
    );
    if (run === flag.RUNS)
      details.push(`relay402, EOA verify: calls per verify by method: ${perMethod(eoa.rpc.calls, eoa.ok)}`);
    console.log(
      `  relay402 EOA verify: ${eoa.ok}/${flag.VERIFIES} valid, ${eoaThroughput.toFixed(0)}/s ${failureReasons(eoa.outcomes)}`,
    );
    if (run === 1)
      record(
        "rss.eoa",
        { label: "peak RSS after the EOA verify lane", unit: "MiB", digits: 0, ...relayOnly },
        "relay402",
        peakRssMiBOf(children.relay402.pid),
      );

    // The burst: flag.BURST settles at flag.BURST_CONCURRENCY on 1-s blocks, relay402 only.
    if (flag.BURST > 0) {
      const bodies = await x402Bodies(flag.BURST);
      const r = await phase("relay402", bodies, flag.BURST_CONCURRENCY, "settle", 120_000);
      const { anvilCpuMs } = r;
      const nonceErrorCount = nonceErrors(r.outcomes);
      const bound = 1.2 * Math.ceil(flag.BURST / flag.BURST_CONCURRENCY) * BLOCK_SECONDS;
      const label = `settle ×${flag.BURST}, concurrency ${flag.BURST_CONCURRENCY}, 1-s blocks`;
      const relay = ["relay402"] as Side[];
      record(
        "burst.ok",
        { label: `${label}: succeeded of ${flag.BURST}`, unit: "", digits: 0, sides: relay },
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
        r.cpuMs / flag.BURST,
      );
      const blocks = await settlementsPerBlock(network.rpcUrl, r.outcomes);
      if (run === flag.RUNS)
        details.push(
          `relay402 burst: ${(r.rpc.roundTrips / flag.BURST).toFixed(2)} round trips per settle; calls per settle by method: ${perMethod(r.rpc.calls, flag.BURST)}`,
          `relay402 burst, settlements per block: ${blocks.join(", ")}`,
        );
      record(
        "burst.blocks",
        { label: `${label}: blocks used`, unit: "", digits: 0, sides: relay },
        "relay402",
        blocks.length,
      );
      console.log(
        `  relay402 ${label}: ${r.ok}/${flag.BURST} in ${(r.wallMs / 1000).toFixed(2)} s over ${blocks.length} blocks; ${nonceErrorCount} nonce errors; CPU: relay402 ${(r.cpuMs / 1000).toFixed(1)} s, load generator and RPC counters ${(r.generatorCpuMs / 1000).toFixed(1)} s, anvil ${(anvilCpuMs / 1000).toFixed(1)} s ${failureReasons(r.outcomes)}`,
      );
      if (run === flag.RUNS)
        record(
          "rss.burst",
          { label: "peak RSS after the burst", unit: "MiB", digits: 0, sides: relay },
          "relay402",
          peakRssMiBOf(children.relay402.pid),
        );
    }
  }

  printReport({
    runs: flag.RUNS,
    settlesC20: flag.SETTLES_C20,
    burst: flag.BURST,
    burstConcurrency: flag.BURST_CONCURRENCY,
    blockSeconds: BLOCK_SECONDS,
  });
} finally {
  await cleanUp();
}
