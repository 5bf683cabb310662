import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Instance } from "prool";
import { type Address, type Hex, type PublicClient, parseEther, parseGwei, toHex } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { freePort } from "../../scripts/devnet/ports";
import { BroadcastRejectedError, ReceiptTimeoutError, RpcUnavailableError } from "./errors";
import { createExecutor, type Executor, type ExecutorConfig } from "./executor";
import { createChainClient } from "./rpc";
import type { Logger } from "./types";

const MNEMONIC = "test test test test test test test test test test test junk";
const CHAIN_ID = 56;
const RECIPIENT: Address = "0x000000000000000000000000000000000000dEaD";
const REVERTER: Address = "0x00000000000000000000000000000000000bad01";
const transfer = { to: RECIPIENT, data: "0x" as Hex, value: 1n, gas: 21_000n };

const derived = new Map<number, Hex>();
/** Memoized: every derivation re-runs the mnemonic's PBKDF2. */
function keyAt(index: number): Hex {
  const cached = derived.get(index);
  if (cached) return cached;
  const key = mnemonicToAccount(MNEMONIC, { addressIndex: index }).getHdKey().privateKey;
  if (!key) throw new Error(`no key at ${index}`);
  derived.set(index, toHex(key));
  return toHex(key);
}
const keys = (from: number, count: number) => Array.from({ length: count }, (_, i) => keyAt(from + i));

let anvil: ReturnType<typeof Instance.anvil>;
let rpcUrl: string;
let client: PublicClient;
const running: Executor[] = [];

const rpc = (method: string, params: unknown[] = []) => client.request({ method, params } as never) as Promise<unknown>;

function recordingLogger() {
  const entries: { level: string; entry: Record<string, unknown> }[] = [];
  const logger: Logger = {
    info: (entry) => entries.push({ level: "info", entry }),
    warn: (entry) => entries.push({ level: "warn", entry }),
    error: (entry) => entries.push({ level: "error", entry }),
  };
  return { entries, logger };
}

function executorFor(privateKeys: Hex[], overrides: Partial<ExecutorConfig> = {}): Executor {
  const executor = createExecutor({
    client,
    chainId: CHAIN_ID,
    privateKeys,
    maxFeePerGasCap: parseGwei("1000"),
    receiptTimeoutMs: 15_000,
    replaceAfterMs: 10_000,
    pollIntervalMs: 50,
    ...overrides,
  });
  running.push(executor);
  return executor;
}

/** Runs `count` tasks with at most `concurrency` at once. */
async function inPool<T>(count: number, concurrency: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

async function withManualMining<T>(run: () => Promise<T>): Promise<T> {
  await rpc("evm_setAutomine", [false]);
  try {
    return await run();
  } finally {
    await rpc("evm_mine");
    await rpc("evm_setAutomine", [true]);
  }
}

/** A JSON-RPC proxy that counts methods (batches included) and can play dead. */
function countingProxy(target: string) {
  const counts = new Map<string, number>();
  const state = { down: false };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      if (state.down) return new Response("unavailable", { status: 503 });
      const body = await request.text();
      const parsed = JSON.parse(body) as { method: string } | { method: string }[];
      for (const call of Array.isArray(parsed) ? parsed : [parsed])
        counts.set(call.method, (counts.get(call.method) ?? 0) + 1);
      const response = await fetch(target, { method: "POST", body, headers: { "content-type": "application/json" } });
      return new Response(await response.text(), { headers: { "content-type": "application/json" } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, counts, state, stop: () => server.stop(true) };
}

beforeAll(async () => {
  const port = await freePort();
  anvil = Instance.anvil({
    binary: `${process.cwd()}/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil`,
    chainId: CHAIN_ID,
    host: "127.0.0.1",
    port,
  } as Parameters<typeof Instance.anvil>[0]);
  await anvil.start();
  rpcUrl = `http://127.0.0.1:${port}`;
  client = createChainClient({ chainId: CHAIN_ID, rpcUrls: [rpcUrl] });
  await Promise.all(
    keys(30, 25).map((key) => rpc("anvil_setBalance", [privateKeyToAccount(key).address, toHex(parseEther("100"))])),
  );
  await rpc("anvil_setCode", [REVERTER, "0x60006000fd"]);
}, 30_000);

afterEach(() => {
  for (const executor of running.splice(0)) executor.stop();
});

afterAll(async () => {
  await anvil?.stop();
});

describe("executor against anvil", () => {
  test("a transfer executes and returns a success receipt", async () => {
    const executor = executorFor(keys(30, 1));
    const { prepared, receipt } = await executor.execute(transfer);
    expect(receipt.status).toBe("success");
    expect(receipt.transactionHash).toBe(prepared.hash);
    expect(receipt.from.toLowerCase()).toBe(String(executor.addresses[0]).toLowerCase());
  });

  test("50 concurrent executes from 4 keys all succeed with distinct (from, nonce)", async () => {
    const executor = executorFor(keys(31, 4));
    const results = await Promise.all(Array.from({ length: 50 }, () => executor.execute(transfer)));
    expect(results.every(({ receipt }) => receipt.status === "success")).toBe(true);
    const slots = new Set(results.map(({ prepared }) => `${prepared.from}:${prepared.nonce}`));
    expect(slots.size).toBe(50);
    expect(new Set(results.map(({ prepared }) => prepared.from)).size).toBe(4);
  });

  test("100 executes at concurrency 20 with 1-second blocks share blocks", async () => {
    const executor = executorFor(keys(35, 4));
    const results = await withManualMining(async () => {
      const miner = setInterval(() => void rpc("evm_mine"), 1_000);
      try {
        return await inPool(100, 20, () => executor.execute(transfer));
      } finally {
        clearInterval(miner);
      }
    });
    expect(results.every(({ receipt }) => receipt.status === "success")).toBe(true);
    const perBlock = new Map<bigint, number>();
    for (const { receipt } of results) perBlock.set(receipt.blockNumber, (perBlock.get(receipt.blockNumber) ?? 0) + 1);
    expect(Math.max(...perBlock.values())).toBeGreaterThanOrEqual(10);
  }, 30_000);

  test("a stuck transaction is replaced with a higher fee and the replacement's receipt returned", async () => {
    const executor = executorFor(keys(39, 1), { replaceAfterMs: 300 });
    const replaced: Hex[] = [];
    const receipt = await withManualMining(async () => {
      const prepared = await executor.prepare(transfer);
      const sending = executor.send(prepared, { onReplaced: (hash) => void replaced.push(hash) });
      await Bun.sleep(1_100);
      await rpc("evm_mine");
      const receipt = await sending;
      const mined = await client.getTransaction({ hash: receipt.transactionHash });
      expect(mined.maxFeePerGas).toBeGreaterThan(prepared.maxFeePerGas);
      expect(mined.nonce).toBe(prepared.nonce);
      expect(receipt.transactionHash).not.toBe(prepared.hash);
      return receipt;
    });
    expect(receipt.status).toBe("success");
    expect(replaced.length).toBeGreaterThanOrEqual(2);
    expect(replaced).toContain(receipt.transactionHash);
  });

  test("no receipt before the timeout throws ReceiptTimeoutError with the hash; waitForReceipt reconciles later", async () => {
    const executor = executorFor(keys(40, 1), { receiptTimeoutMs: 800 });
    const prepared = await executor.prepare(transfer);
    await withManualMining(async () => {
      const error = await executor.send(prepared).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ReceiptTimeoutError);
      expect((error as ReceiptTimeoutError).hash).toBe(prepared.hash);
      expect((error as ReceiptTimeoutError).code).toBe("RECEIPT_TIMEOUT");
    });
    const receipt = await executor.waitForReceipt(prepared.hash, 5_000);
    expect(receipt?.status).toBe("success");
    expect(await executor.waitForReceipt(`0x${"ab".repeat(32)}`, 300)).toBeNull();
  });

  test("the fee cap is respected when the network fee exceeds it", async () => {
    await rpc("anvil_setNextBlockBaseFeePerGas", [toHex(parseGwei("5"))]);
    await rpc("evm_mine");
    const { entries, logger } = recordingLogger();
    const cap = parseGwei("6");
    const executor = executorFor(keys(41, 1), { maxFeePerGasCap: cap, logger });
    const { prepared, receipt } = await executor.execute(transfer);
    expect(prepared.maxFeePerGas).toBe(cap);
    expect(prepared.maxPriorityFeePerGas).toBeLessThanOrEqual(cap);
    expect(receipt.status).toBe("success");
    expect(entries.some(({ level, entry }) => level === "warn" && String(entry.msg).includes("cap"))).toBe(true);
  });

  test("RPC fallback: a dead first URL fails over to the live one", async () => {
    const deadUrl = `http://127.0.0.1:${await freePort()}`;
    const executor = executorFor(keys(42, 1), {
      client: createChainClient({ chainId: CHAIN_ID, rpcUrls: [deadUrl, rpcUrl] }),
    });
    const { receipt } = await executor.execute(transfer);
    expect(receipt.status).toBe("success");
  });

  test("all URLs dead: RpcUnavailableError, not a hang", async () => {
    const deadUrls = [`http://127.0.0.1:${await freePort()}`, `http://127.0.0.1:${await freePort()}`];
    const executor = executorFor(keys(43, 1), { client: createChainClient({ chainId: CHAIN_ID, rpcUrls: deadUrls }) });
    const started = Date.now();
    const error = await executor.execute(transfer).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RpcUnavailableError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test("a broadcast that no endpoint answers throws RpcUnavailableError", async () => {
    const proxy = countingProxy(rpcUrl);
    try {
      const executor = executorFor(keys(49, 1), {
        client: createChainClient({ chainId: CHAIN_ID, rpcUrls: [proxy.url] }),
      });
      const prepared = await executor.prepare(transfer);
      proxy.state.down = true;
      const error = await executor.send(prepared).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RpcUnavailableError);
      proxy.state.down = false;
      await executor.rebroadcast(prepared.raw);
      await executor.rebroadcast(prepared.raw); // "already known" or "nonce too low": ignored
      expect((await executor.waitForReceipt(prepared.hash, 5_000))?.status).toBe("success");
    } finally {
      proxy.stop();
    }
  });

  test("a reverting call returns a receipt with status reverted", async () => {
    const executor = executorFor(keys(44, 1));
    const { receipt } = await executor.execute({ to: REVERTER, data: "0x", gas: 100_000n });
    expect(receipt.status).toBe("reverted");
  });

  test("a rejected broadcast leaves no nonce gap for the transactions prepared after it", async () => {
    const [key] = keys(50, 1) as [Hex];
    await rpc("anvil_setBalance", [privateKeyToAccount(key).address, toHex(parseEther("1"))]);
    const executor = executorFor([key]);
    const tooExpensive = await executor.prepare({ ...transfer, value: parseEther("5") });
    const next = await executor.prepare(transfer);
    expect(next.nonce).toBe(tooExpensive.nonce + 1);
    const error = await executor.send(tooExpensive).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BroadcastRejectedError);
    expect((await executor.send(next)).status).toBe("success");

    const alone = await executor.prepare({ ...transfer, value: parseEther("5") });
    await executor.send(alone).catch(() => undefined);
    const { prepared, receipt } = await executor.execute(transfer);
    expect(prepared.nonce).toBe(alone.nonce); // the refused nonce is reused
    expect(receipt.status).toBe("success");
  });

  test("receipts of 20 concurrent transactions cost far fewer calls than one loop per transaction", async () => {
    const proxy = countingProxy(rpcUrl);
    try {
      const { entries, logger } = recordingLogger();
      const privateKeys = keys(45, 4);
      const executor = executorFor(privateKeys, {
        client: createChainClient({ chainId: CHAIN_ID, rpcUrls: [proxy.url] }),
        logger,
      });
      const results = await withManualMining(async () => {
        const miner = setInterval(() => void rpc("evm_mine"), 500);
        try {
          return await Promise.all(Array.from({ length: 20 }, () => executor.execute(transfer)));
        } finally {
          clearInterval(miner);
        }
      });
      expect(results.every(({ receipt }) => receipt.status === "success")).toBe(true);
      const receiptCalls = proxy.counts.get("eth_getTransactionReceipt") ?? 0;
      const polls = proxy.counts.get("eth_blockNumber") ?? 0;
      // One loop per transaction would ask 20 × polls times; the shared poller about once per transaction.
      expect(receiptCalls).toBeLessThanOrEqual(25);
      expect(receiptCalls).toBeLessThan((20 * polls) / 4);
      expect(proxy.counts.get("eth_feeHistory") ?? 0).toBeLessThanOrEqual(2);
      expect(proxy.counts.get("eth_getTransactionCount")).toBe(4);
      const logged = JSON.stringify(entries);
      for (const key of privateKeys) expect(logged).not.toContain(key.slice(2));
    } finally {
      proxy.stop();
    }
  });
});
