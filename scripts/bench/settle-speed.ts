// `bun run bench:speed`: how fast relay402's own /settle (the interface's body, bsc, the relayer) answers, and
// what each settle costs the facilitator, against a fresh devnet. Prints, at concurrency 1 on automine and on
// 1-second blocks: settle p50/p99, JSON-RPC calls per settle by method, and the facilitator's CPU ms per settle;
// then, while 100 settles run at concurrency 20 on 1-second blocks, the facilitator's event loop delay p99.
//
// The facilitator runs in a child process of its own (this file with `--service`), so that its CPU time and its
// event loop are measured without the load generator's signing and HTTP client, nor the RPC counting proxy.
import "../../src/production-env";
import { join } from "node:path";
import { eoaPaymentBody } from "./eoa-payment-body";

type Stats = { cpuMs: number; delayP99: number; delayMax: number; samples: number };
type Message = { kind: "ready"; url: string } | { kind: "stats"; stats: Stats };

if (process.argv.includes("--service")) await serve();
// Servers and sockets of the load generator would keep the process alive: exit when done.
else
  await bench().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );

/** The child: the service, plus an event loop lag probe; answers "reset" and "stats" over IPC. */
async function serve() {
  const { validateConfig } = await import("../../src/config/load");
  const { startServer } = await import("../../src/server");
  const config = validateConfig(JSON.parse(process.env.SETTLE_SPEED_CONFIG ?? "{}"));
  const service = await startServer(config, { silent: true });

  // A 5 ms timer that records how late it fires: the time a callback waits behind work on the loop.
  const TICK_MS = 5;
  let delays: number[] = [];
  let expected = performance.now() + TICK_MS;
  const tick = () => {
    const now = performance.now();
    delays.push(Math.max(0, now - expected));
    expected = now + TICK_MS;
    setTimeout(tick, TICK_MS);
  };
  setTimeout(tick, TICK_MS);

  let cpuBase = process.cpuUsage();
  const send = (message: Message) => process.send?.(message);
  process.on("message", (message: string) => {
    if (message === "reset") {
      cpuBase = process.cpuUsage();
      delays = [];
    } else if (message === "stats") {
      const cpu = process.cpuUsage(cpuBase);
      const sorted = [...delays].sort((a, b) => a - b);
      send({
        kind: "stats",
        stats: {
          cpuMs: (cpu.user + cpu.system) / 1000,
          delayP99: sorted[Math.floor(sorted.length * 0.99)] ?? 0,
          delayMax: sorted.at(-1) ?? 0,
          samples: sorted.length,
        },
      });
    } else if (message === "stop") {
      service.stop().finally(() => process.exit(0));
    }
  });
  send({ kind: "ready", url: service.url });
}

async function bench() {
  const { createPublicClient, createTestClient, createWalletClient, http } = await import("viem");
  const { generatePrivateKey, privateKeyToAccount } = await import("viem/accounts");
  const { erc20Abi } = await import("@relay402/client/wire/abis");
  const { startRpcCounter } = await import("./rpc-counter");
  const { benchServiceConfig, startBenchDevnet } = await import("./bench-devnet");
  const { devnetChain } = await import("../devnet/chain");

  const percentile = (values: number[], p: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  };
  const ms = (value: number) => `${value.toFixed(1)} ms`;

  const cleanups: (() => unknown)[] = [];
  const { devnet, dir } = await startBenchDevnet("settle-speed", cleanups);
  const network = devnet.manifest.networks.bsc;
  const counter = startRpcCounter(network.rpcUrl);
  cleanups.push(() => counter.stop());
  const config = await benchServiceConfig(devnet.manifest, "bsc", counter.url, join(dir, "bench.sqlite"));

  let onMessage: (message: Message) => void = () => undefined;
  const child = Bun.spawn([process.execPath, import.meta.path, "--service"], {
    env: { ...process.env, SETTLE_SPEED_CONFIG: JSON.stringify(config) },
    stdout: "inherit",
    stderr: "inherit",
    ipc: (message: Message) => onMessage(message),
  });
  const next = () => new Promise<Message>((resolve) => (onMessage = resolve));

  try {
    const ready = await Promise.race([
      next(),
      Bun.sleep(60_000).then(() => {
        throw new Error("the service did not start");
      }),
    ]);
    if (ready.kind !== "ready") throw new Error("unexpected message from the service");
    const serviceUrl = ready.url;
    const stats = async () => {
      const answer = next();
      child.send("stats");
      const message = await answer;
      if (message.kind !== "stats") throw new Error("unexpected message from the service");
      return message.stats;
    };

    const chain = devnetChain(network.chainId, "bsc", network.rpcUrl);
    const transport = http(network.rpcUrl);
    const publicClient = createPublicClient({ chain, transport });
    const testClient = createTestClient({ chain, transport, mode: "anvil" });
    const token = network.tokens.USDT?.address as `0x${string}`;
    const payerKey = generatePrivateKey();
    const payer = privateKeyToAccount(payerKey);
    const wallet = createWalletClient({ chain, transport, account: payer });
    await testClient.setBalance({ address: payer.address, value: 10n ** 20n });
    for (const [functionName, args] of [
      ["mint", [payer.address, 10n ** 30n]],
      ["approve", [network.relayer, 10n ** 30n]],
    ] as const) {
      const hash = await wallet.writeContract({ address: token, abi: erc20Abi, functionName, args } as never);
      await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    }

    const payment = () => eoaPaymentBody(payer, network.relayer, token);
    const settle = async (body: string) => {
      const started = performance.now();
      const response = await fetch(`${serviceUrl}/settle`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      const json = (await response.json()) as { transaction?: string; code?: string };
      return { ok: response.status === 200 && Boolean(json.transaction), latency: performance.now() - started, json };
    };

    async function run(label: string, count: number, concurrency: number) {
      const bodies = await Promise.all(Array.from({ length: count }, payment));
      counter.reset();
      child.send("reset");
      const latencies: number[] = [];
      const failures: string[] = [];
      let issued = 0;
      const began = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (issued < bodies.length) {
            const result = await settle(bodies[issued++] as string);
            if (result.ok) latencies.push(result.latency);
            else failures.push(result.json.code ?? "?");
          }
        }),
      );
      const wall = (performance.now() - began) / 1000;
      const facilitator = await stats();
      const rpc = counter.snapshot();
      const perSettle = Object.entries(rpc.calls)
        .sort(([, a], [, b]) => b - a)
        .map(([method, calls]) => `${method} ${(calls / count).toFixed(2)}`)
        .join(", ");
      console.log(`\n/settle x${count}, ${label}, concurrency ${concurrency}`);
      console.log(
        `  succeeded ${latencies.length}/${count} in ${wall.toFixed(2)} s${failures.length ? `, failures: ${[...new Set(failures)].join(", ")}` : ""}`,
      );
      console.log(`  settle p50 ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}`);
      console.log(
        `  JSON-RPC per settle: ${(rpc.roundTrips / count).toFixed(2)} round trips, ${(Object.values(rpc.calls).reduce((a, b) => a + b, 0) / count).toFixed(2)} calls (${perSettle})`,
      );
      console.log(`  facilitator CPU per settle ${ms(facilitator.cpuMs / count)}`);
      console.log(
        `  facilitator event loop delay p99 ${ms(facilitator.delayP99)}, max ${ms(facilitator.delayMax)} (${facilitator.samples} samples)`,
      );
    }

    // Warm-up: the first settle reads nonces and fees, and JIT-compiles the hot paths.
    for (let i = 0; i < 5; i++) await settle(await payment());
    await run("automine", 50, 1);
    await testClient.setAutomine(false);
    await testClient.setIntervalMining({ interval: 1 });
    await Bun.sleep(1000);
    await run("1-second blocks", 20, 1);
    await run("1-second blocks", 100, 20);
  } finally {
    child.send("stop");
    await Promise.race([child.exited, Bun.sleep(5000)]);
    if (child.exitCode === null) child.kill();
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}
