// `bun run bench`: EOA payment figures against a fresh devnet (not a test; prints numbers for docs/benchmarks.md).
// /verify latency and throughput with 16 clients, refusal of deeply nested bodies (and /health while ten arrive),
// /settle of 100 payments at concurrency 1 and 20 with automine and with 1-second blocks, JSON-RPC round trips per
// verify and per settle, gas, peak RSS. Each /verify and /settle figure is printed twice: for the interface's own
// body (bsc, the relayer) and for an x402 v2 body (base, EIP-3009 on the token, signed by @x402/evm's own client).
import "../src/production-env";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { erc20Abi } from "@relay402/client/wire/abis";
import { x402Client } from "@x402/core/client";
import type { PaymentRequirements } from "@x402/core/types";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { createPublicClient, createTestClient, createWalletClient, http } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { startServer } from "../src/server";
import { eoaPaymentBody } from "./bench/eoa-payment-body";
import { startRpcCounter } from "./bench/rpc-counter";
import { buildContracts } from "./devnet/build";
import { devnetChain } from "./devnet/chain";
import { freePort } from "./devnet/ports";
import { configFromManifest } from "./devnet/service-config";
import { type DevnetNetwork, startDevnet } from "./devnet/start";

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const ms = (value: number) => `${value.toFixed(2)} ms`;

let peakRss = 0;
const rssTimer = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 50);

buildContracts();
const dir = mkdtempSync(join(tmpdir(), "relay402-bench-"));
const devnet = await startDevnet({ dir, quiet: true });
const network = devnet.manifest.networks.bsc;
const baseNetwork = devnet.manifest.networks.base;
// Every RPC call of the service goes through a counter, one per chain.
const counter = startRpcCounter(network.rpcUrl);
const baseCounter = startRpcCounter(baseNetwork.rpcUrl);
const manifest = { ...devnet.manifest, service: `http://127.0.0.1:${await freePort()}` };
manifest.networks = {
  bsc: { ...network, rpcUrl: counter.url },
  base: { ...baseNetwork, rpcUrl: baseCounter.url },
};
const service = await startServer(
  configFromManifest(manifest, {
    databasePath: join(dir, "bench.sqlite"),
    rateLimitPerMinute: 10_000_000,
    logRequests: false,
  }),
  {
    silent: true,
  },
);

/** Clients of one devnet chain, straight to anvil (not counted). */
function clientsOf(info: DevnetNetwork, name: "bsc" | "base") {
  const chain = devnetChain(info.chainId, name, info.rpcUrl);
  const transport = http(info.rpcUrl);
  return {
    publicClient: createPublicClient({ chain, transport }),
    testClient: createTestClient({ chain, transport, mode: "anvil" }),
    walletOf: (key: `0x${string}`) => createWalletClient({ chain, transport, account: privateKeyToAccount(key) }),
  };
}

/** One body format: how to make a fresh payment and how to read the answers. */
type Lane = {
  label: string;
  counter: ReturnType<typeof startRpcCounter>;
  publicClient: ReturnType<typeof clientsOf>["publicClient"];
  payment(): Promise<string>;
  verified(json: Record<string, any>): boolean;
  /** The transaction of a successful settle, or null. */
  settled(status: number, json: Record<string, any>): string | null;
  failure(json: Record<string, any>): string;
};

try {
  const { publicClient, testClient, walletOf } = clientsOf(network, "bsc");
  const token = network.tokens.USDT!.address;

  const payerKey = generatePrivateKey();
  const payer = privateKeyToAccount(payerKey);
  const wallet = walletOf(payerKey);
  await testClient.setBalance({ address: payer.address, value: 10n ** 20n });
  await publicClient.waitForTransactionReceipt({
    hash: await wallet.writeContract({
      address: token,
      abi: erc20Abi,
      functionName: "mint",
      args: [payer.address, 10n ** 30n],
    }),
  });
  await publicClient.waitForTransactionReceipt({
    hash: await wallet.writeContract({
      address: token,
      abi: erc20Abi,
      functionName: "approve",
      args: [network.relayer, 10n ** 30n],
    }),
  });

  const payment = (value = 1000n) => eoaPaymentBody(payer, network.relayer, token, { value });

  // x402 v2 on base: the buyer holds the EIP-3009 token (no approve) and signs with @x402/evm's exact scheme.
  const base = clientsOf(baseNetwork, "base");
  const usdc = baseNetwork.tokens.USDC!.address;
  const buyerKey = generatePrivateKey();
  const buyer = privateKeyToAccount(buyerKey);
  await base.testClient.setBalance({ address: buyer.address, value: 10n ** 20n });
  await base.publicClient.waitForTransactionReceipt({
    hash: await base.walletOf(buyerKey).writeContract({
      address: usdc,
      abi: erc20Abi,
      functionName: "mint",
      args: [buyer.address, 10n ** 18n],
    }),
  });
  const x402 = registerExactEvmScheme(new x402Client(), { signer: buyer });
  x402.setSpendControls({ allowedAssets: true }); // the devnet token is not one of x402's default assets
  const x402Payment = async () => {
    const requirements: PaymentRequirements = {
      scheme: "exact",
      network: "eip155:8453",
      asset: usdc,
      amount: "1000",
      payTo: privateKeyToAccount(generatePrivateKey()).address,
      maxTimeoutSeconds: 3600,
      extra: { name: "USD Coin", version: "2" },
    };
    const resource = { url: "http://shop.test/item", description: "an item", mimeType: "text/plain" };
    const paymentPayload = await x402.createPaymentPayload({ x402Version: 2, resource, accepts: [requirements] });
    return JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements: requirements });
  };

  const lanes: Lane[] = [
    {
      label: "relay402 body, bsc",
      counter,
      publicClient,
      payment,
      verified: (json) => json.isValid === true,
      settled: (status, json) => (status === 200 ? json.transaction : null),
      failure: (json) => json.code,
    },
    {
      label: "x402 v2 body, base EIP-3009",
      counter: baseCounter,
      publicClient: base.publicClient,
      payment: x402Payment,
      verified: (json) => json.isValid === true,
      settled: (_status, json) => (json.success === true ? json.transaction : null),
      failure: (json) => json.errorReason ?? json.code,
    },
  ];

  const post = async (path: string, body: string) => {
    const started = performance.now();
    const response = await fetch(`${service.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    const json = (await response.json()) as Record<string, any>;
    return { status: response.status, json, latency: performance.now() - started };
  };

  // /verify: 16 clients, 4000 requests, after a warm-up.
  async function verifyRun(lane: Lane) {
    const verifyBody = await lane.payment();
    for (let i = 0; i < 200; i++) await post("/verify", verifyBody);
    lane.counter.reset();
    const latencies: number[] = [];
    const total = 4000;
    let issued = 0;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (issued < total) {
          issued += 1;
          const result = await post("/verify", verifyBody);
          if (!lane.verified(result.json)) throw new Error(`verify failed: ${JSON.stringify(result.json)}`);
          latencies.push(result.latency);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const verifyRpc = lane.counter.snapshot();
    console.log(`\n/verify (${lane.label}), 16 concurrent clients`);
    console.log(`  requests ${latencies.length}, throughput ${(latencies.length / seconds).toFixed(0)} verifies/s`);
    console.log(`  latency p50 ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}`);
    console.log(
      `  JSON-RPC round trips per verify ${(verifyRpc.roundTrips / latencies.length).toFixed(2)} (${JSON.stringify(verifyRpc.calls)})`,
    );
    console.log(
      `  CPU of this process (service + load generator) per verify ${ms((cpu.user + cpu.system) / 1000 / latencies.length)}`,
    );
  }
  for (const lane of lanes) await verifyRun(lane);

  // Bodies nested 30,000 deep (60 KB, under the size limit): refused before the parser and the schema.
  const deep = `${"[".repeat(30_000)}${"]".repeat(30_000)}`;
  const health = async () => {
    const begin = performance.now();
    await (await fetch(`${service.url}/health`)).text();
    return performance.now() - begin;
  };
  const refusals: number[] = [];
  for (let i = 0; i < 20; i++) {
    const result = await post("/verify", deep);
    if (result.status !== 400) throw new Error(`deep body: ${result.status} ${JSON.stringify(result.json)}`);
    refusals.push(result.latency);
  }
  const healthAlone: number[] = [];
  const healthUnderDeep: number[] = [];
  for (let i = 0; i < 10; i++) {
    healthAlone.push(await health());
    const flood = Array.from({ length: 10 }, () => post("/verify", deep));
    healthUnderDeep.push(await health());
    await Promise.all(flood);
  }
  console.log("\nbodies nested 30,000 deep (60 KB)");
  console.log(`  time to refuse one: p50 ${ms(percentile(refusals, 50))}, max ${ms(Math.max(...refusals))}`);
  console.log(
    `  /health latency p50 alone ${ms(percentile(healthAlone, 50))}, while ten arrive at once ${ms(percentile(healthUnderDeep, 50))} (max ${ms(Math.max(...healthUnderDeep))})`,
  );

  async function settleRun(lane: Lane, label: string, concurrency: number) {
    const bodies = await Promise.all(Array.from({ length: 100 }, () => lane.payment()));
    lane.counter.reset();
    let next = 0;
    let ok = 0;
    const failures: string[] = [];
    const hashes: string[] = [];
    const begin = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++]!;
          const result = await post("/settle", body);
          const transaction = lane.settled(result.status, result.json);
          if (transaction) {
            ok += 1;
            hashes.push(transaction);
          } else failures.push(lane.failure(result.json));
        }
      }),
    );
    const elapsed = (performance.now() - begin) / 1000;
    const rpc = lane.counter.snapshot();
    const receiptOf = (hash: string) => lane.publicClient.getTransactionReceipt({ hash: hash as `0x${string}` });
    const receipt = hashes[0] ? await receiptOf(hashes[0]) : null;
    const blocks = new Set<bigint>();
    for (const hash of hashes.slice(0, 100)) blocks.add((await receiptOf(hash)).blockNumber);
    console.log(`\n/settle x100 (${lane.label}), ${label}, concurrency ${concurrency}`);
    console.log(
      `  succeeded ${ok}/100 in ${elapsed.toFixed(2)} s${failures.length ? `, failures: ${[...new Set(failures)].join(", ")}` : ""}`,
    );
    console.log(
      `  blocks used ${blocks.size}; JSON-RPC round trips per settle ${(rpc.roundTrips / 100).toFixed(2)} (${JSON.stringify(rpc.calls)})`,
    );
    if (receipt) console.log(`  gas per settle ${receipt.gasUsed}`);
  }

  for (const lane of lanes) {
    await settleRun(lane, "automine", 1);
    await settleRun(lane, "automine", 20);
  }
  for (const client of [testClient, base.testClient]) {
    await client.setAutomine(false);
    await client.setIntervalMining({ interval: 1 });
  }
  for (const lane of lanes) {
    await settleRun(lane, "1-second blocks", 1);
    await settleRun(lane, "1-second blocks", 20);
  }
  console.log(`\npeak RSS of the bench process (service + load generator): ${(peakRss / 1024 / 1024).toFixed(0)} MiB`);
} finally {
  clearInterval(rssTimer);
  await service.stop().catch(() => undefined);
  counter.stop();
  baseCounter.stop();
  await devnet.stop();
  rmSync(dir, { recursive: true, force: true });
}
