// `bun run bench`: EOA payment figures against a fresh devnet (not a test; prints numbers for the README).
// /verify latency and throughput with 16 clients, refusal of deeply nested bodies (and /health while ten arrive),
// /settle of 100 payments at concurrency 1 and 20 with automine and with 1-second blocks, JSON-RPC round trips per
// verify and per settle, gas, peak RSS.
import "../src/production-env";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPublicClient, createTestClient, createWalletClient, http, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { erc20Abi } from "../src/chain/abis";
import { startServer } from "../src/server";
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from "../test/support/authorization";
import { startRpcCounter } from "./bench/rpc-counter";
import { buildContracts } from "./devnet/build";
import { devnetChain } from "./devnet/chain";
import { freePort } from "./devnet/ports";
import { configFromManifest } from "./devnet/service-config";
import { startDevnet } from "./devnet/start";

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
const counter = startRpcCounter(network.rpcUrl);
const manifest = { ...devnet.manifest, service: `http://127.0.0.1:${await freePort()}` };
manifest.networks = { ...manifest.networks, bsc: { ...network, rpcUrl: counter.url } };
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

try {
  const chain = devnetChain(56, "bsc", network.rpcUrl);
  const transport = http(network.rpcUrl);
  const publicClient = createPublicClient({ chain, transport });
  const testClient = createTestClient({ chain, transport, mode: "anvil" });
  const token = network.tokens.USDT!.address;

  const payerKey = generatePrivateKey();
  const payer = privateKeyToAccount(payerKey);
  const wallet = createWalletClient({ chain, transport, account: payer });
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

  const payment = async (value = 1000n) => {
    const now = Math.floor(Date.now() / 1000);
    const message = {
      token,
      from: payer.address,
      to: privateKeyToAccount(generatePrivateKey()).address,
      value,
      validAfter: BigInt(now - 60),
      validBefore: BigInt(now + 3600),
      nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
    };
    const signature = await payer.signTypedData({
      domain: { name: "relay402", version: "1", chainId: 56, verifyingContract: network.relayer },
      types: TRANSFER_WITH_AUTHORIZATION_TYPES,
      primaryType: "TransferWithAuthorization",
      message,
    });
    return JSON.stringify({
      paymentPayload: {
        token,
        payload: {
          authorization: {
            ...message,
            value: value.toString(),
            validAfter: Number(message.validAfter),
            validBefore: Number(message.validBefore),
          },
          signature,
        },
      },
      paymentRequirements: { network: "bsc", relayerContract: network.relayer },
    });
  };
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
  const verifyBody = await payment();
  for (let i = 0; i < 200; i++) await post("/verify", verifyBody);
  counter.reset();
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
        if (!result.json.isValid) throw new Error(`verify failed: ${JSON.stringify(result.json)}`);
        latencies.push(result.latency);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const verifyRpc = counter.snapshot();
  console.log("\n/verify, 16 concurrent clients");
  console.log(`  requests ${latencies.length}, throughput ${(latencies.length / seconds).toFixed(0)} verifies/s`);
  console.log(`  latency p50 ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}`);
  console.log(
    `  JSON-RPC round trips per verify ${(verifyRpc.roundTrips / latencies.length).toFixed(2)} (${JSON.stringify(verifyRpc.calls)})`,
  );
  console.log(
    `  CPU of this process (service + load generator) per verify ${ms((cpu.user + cpu.system) / 1000 / latencies.length)}`,
  );

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

  async function settleRun(label: string, concurrency: number) {
    const bodies = await Promise.all(Array.from({ length: 100 }, () => payment()));
    counter.reset();
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
          if (result.status === 200) {
            ok += 1;
            hashes.push(result.json.transaction);
          } else failures.push(result.json.code);
        }
      }),
    );
    const elapsed = (performance.now() - begin) / 1000;
    const rpc = counter.snapshot();
    const receipt = hashes[0] ? await publicClient.getTransactionReceipt({ hash: hashes[0] as `0x${string}` }) : null;
    const blocks = new Set<bigint>();
    for (const hash of hashes.slice(0, 100))
      blocks.add((await publicClient.getTransactionReceipt({ hash: hash as `0x${string}` })).blockNumber);
    console.log(`\n/settle x100, ${label}, concurrency ${concurrency}`);
    console.log(
      `  succeeded ${ok}/100 in ${elapsed.toFixed(2)} s${failures.length ? `, failures: ${[...new Set(failures)].join(", ")}` : ""}`,
    );
    console.log(
      `  blocks used ${blocks.size}; JSON-RPC round trips per settle ${(rpc.roundTrips / 100).toFixed(2)} (${JSON.stringify(rpc.calls)})`,
    );
    if (receipt) console.log(`  gas per settle ${receipt.gasUsed}`);
  }

  await settleRun("automine", 1);
  await settleRun("automine", 20);
  await testClient.setAutomine(false);
  await testClient.setIntervalMining({ interval: 1 });
  await settleRun("1-second blocks", 1);
  await settleRun("1-second blocks", 20);
  console.log(`\npeak RSS of the bench process (service + load generator): ${(peakRss / 1024 / 1024).toFixed(0)} MiB`);
} finally {
  clearInterval(rssTimer);
  await service.stop().catch(() => undefined);
  counter.stop();
  await devnet.stop();
  rmSync(dir, { recursive: true, force: true });
}
