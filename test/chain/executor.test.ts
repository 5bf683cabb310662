import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Instance } from "prool";
import {
  type Address,
  type Hex,
  type PublicClient,
  parseEther,
  parseGwei,
  parseTransaction,
  recoverTransactionAddress,
  type TransactionSerialized,
  toHex,
} from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { freePort } from "../../scripts/devnet/ports";
import { BroadcastRejectedError, ReceiptTimeoutError, RpcUnavailableError } from "../../src/chain/errors";
import { createExecutor, type Executor, type ExecutorConfig, type PreparedTransaction } from "../../src/chain/executor";
import { createChainClient } from "../../src/chain/rpc";
import { createSyncSendClient, createSyncSender } from "../../src/chain/sync-send";
import type { Logger } from "../../src/logger";

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

type RpcCall = { id: number; method: string; params?: unknown[] };
/** What the proxy does with one call: forward it (undefined), answer a node error, or fail the whole request. */
type Verdict = undefined | { refuse: string } | "unavailable";

/**
 * A JSON-RPC proxy that counts methods (batches included), can play dead, and lets `decide` refuse single
 * calls with a node error (the others of a batch go through) or fail the HTTP request.
 */
function countingProxy(target: string, decide: (call: RpcCall) => Verdict | Promise<Verdict> = () => undefined) {
  const counts = new Map<string, number>();
  /** Hashes of the transactions the node accepted through this proxy. */
  const accepted = new Set<Hex>();
  const state = { down: false };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      if (state.down) return new Response("unavailable", { status: 503 });
      const parsed = (await request.json()) as RpcCall | RpcCall[];
      const calls = Array.isArray(parsed) ? parsed : [parsed];
      for (const call of calls) counts.set(call.method, (counts.get(call.method) ?? 0) + 1);
      const verdicts = await Promise.all(calls.map(decide));
      if (verdicts.includes("unavailable")) return new Response("unavailable", { status: 503 });
      const forwarded = calls.filter((_, index) => verdicts[index] === undefined);
      const answers = new Map<number, unknown>();
      if (forwarded.length > 0) {
        const response = await fetch(target, {
          method: "POST",
          body: JSON.stringify(Array.isArray(parsed) ? forwarded : forwarded[0]),
          headers: { "content-type": "application/json" },
        });
        const json = (await response.json()) as { id: number } | { id: number }[];
        for (const answer of Array.isArray(json) ? json : [json]) answers.set(answer.id, answer);
        for (const call of forwarded) {
          const answer = answers.get(call.id) as { result?: Hex } | undefined;
          if (call.method === "eth_sendRawTransaction" && answer?.result) accepted.add(answer.result);
        }
      }
      const replies = calls.map((call, index) => {
        const verdict = verdicts[index];
        if (typeof verdict === "object")
          return { jsonrpc: "2.0", id: call.id, error: { code: -32000, message: verdict.refuse } };
        return answers.get(call.id);
      });
      return Response.json(Array.isArray(parsed) ? replies : replies[0]);
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, counts, accepted, state, stop: () => server.stop(true) };
}

/** The sender and nonce of an eth_sendRawTransaction call, else undefined. */
async function broadcastOf(call: RpcCall): Promise<{ from: Address; nonce: number } | undefined> {
  if (call.method !== "eth_sendRawTransaction") return undefined;
  const raw = call.params?.[0] as TransactionSerialized;
  return {
    from: await recoverTransactionAddress({ serializedTransaction: raw }),
    nonce: parseTransaction(raw).nonce ?? 0,
  };
}

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The hash of the mined transaction of `address` at `nonce`, looked up block by block from the newest. */
async function hashAtNonce(address: Address, nonce: number): Promise<Hex> {
  for (let number = await client.getBlockNumber(); number >= 0n; number--) {
    const block = await client.getBlock({ blockNumber: number, includeTransactions: true });
    const found = block.transactions.find((tx) => sameAddress(tx.from, address) && tx.nonce === nonce);
    if (found) return found.hash;
  }
  throw new Error(`no transaction of ${address} at nonce ${nonce}`);
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
    keys(30, 32).map((key) => rpc("anvil_setBalance", [privateKeyToAccount(key).address, toHex(parseEther("100"))])),
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

  describe("with eth_sendRawTransactionSync", () => {
    const syncSend = (timeoutMs: number) =>
      createSyncSender({
        client: createSyncSendClient(rpcUrl, timeoutMs),
        mode: "always",
        logger: recordingLogger().logger,
      });

    test("the receipt comes from the send, with no eth_getTransactionReceipt", async () => {
      const proxy = countingProxy(rpcUrl);
      try {
        const executor = executorFor(keys(59, 1), {
          client: createChainClient({ chainId: CHAIN_ID, rpcUrls: [proxy.url] }),
          syncSend: createSyncSender({
            client: createSyncSendClient(proxy.url, 2_000),
            mode: "always",
            logger: recordingLogger().logger,
          }),
        });
        const { prepared, receipt } = await executor.execute(transfer);
        expect(receipt.status).toBe("success");
        expect(receipt.transactionHash).toBe(prepared.hash);
        expect(proxy.counts.get("eth_sendRawTransactionSync")).toBe(1);
        expect(proxy.counts.get("eth_sendRawTransaction") ?? 0).toBe(0);
        expect(proxy.counts.get("eth_getTransactionReceipt") ?? 0).toBe(0);
      } finally {
        proxy.stop();
      }
    });

    test("a sync send that times out: the stuck transaction is still fee-bumped and the replacement's receipt returned", async () => {
      const executor = executorFor(keys(60, 1), { replaceAfterMs: 600, syncSend: syncSend(400) });
      const replaced: Hex[] = [];
      const receipt = await withManualMining(async () => {
        const prepared = await executor.prepare(transfer);
        const sending = executor.send(prepared, { onReplaced: (hash) => void replaced.push(hash) });
        await Bun.sleep(1_100);
        await rpc("evm_mine");
        const receipt = await sending;
        const mined = await client.getTransaction({ hash: receipt.transactionHash });
        expect(mined.nonce).toBe(prepared.nonce);
        expect(mined.maxFeePerGas).toBeGreaterThan(prepared.maxFeePerGas);
        return receipt;
      });
      expect(receipt.status).toBe("success");
      expect(replaced).toContain(receipt.transactionHash);
    });

    test("a sync send that times out and no block before receiptTimeoutMs: ReceiptTimeoutError, counted from the broadcast", async () => {
      const executor = executorFor(keys(61, 1), { receiptTimeoutMs: 900, syncSend: syncSend(600) });
      const prepared = await executor.prepare(transfer);
      await withManualMining(async () => {
        const started = performance.now();
        const error = await executor.send(prepared).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(ReceiptTimeoutError);
        expect((error as ReceiptTimeoutError).hash).toBe(prepared.hash);
        expect(performance.now() - started).toBeLessThan(1_400);
      });
      expect((await executor.waitForReceipt(prepared.hash, 5_000))?.status).toBe("success");
    });
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
    expect(entries.some(({ level, entry }) => level === "warn" && entry.event === "network_fee_capped")).toBe(true);
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

  describe("nonce gaps", () => {
    /** Fast repair rounds, and no replacement of the waiting transactions to muddy the picture. */
    const gapConfig = { gapRetryMs: 100, gapRetryMaxMs: 400, replaceAfterMs: 60_000 } as const;

    async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!(await condition())) {
        if (Date.now() > deadline) throw new Error("condition not met in time");
        await Bun.sleep(25);
      }
    }

    /** Sends `later` (nonce n+1) and waits until the node got it, so that it is queued behind nonce n. */
    async function sendFirst(executor: Executor, later: PreparedTransaction, proxy: { accepted: Set<Hex> }) {
      const sending = executor.send(later);
      sending.catch(() => undefined);
      await until(() => proxy.accepted.has(later.hash));
      return { sending };
    }

    test("a refused nonce n under a signed n+1 is filled, with retries, and the key goes on without a restart", async () => {
      const [key] = keys(55, 1) as [Hex];
      const address = privateKeyToAccount(key).address;
      const refusals = { left: 4 };
      const proxy = countingProxy(rpcUrl, async (call) => {
        const sent = await broadcastOf(call);
        if (!sent || !sameAddress(sent.from, address) || refusals.left === 0) return undefined;
        const first = await client.getTransactionCount({ address, blockTag: "latest" });
        if (sent.nonce !== first) return undefined;
        refusals.left--;
        return { refuse: "insufficient funds for gas * price + value" };
      });
      try {
        const { entries, logger } = recordingLogger();
        const executor = executorFor([key], {
          client: createChainClient({ chainId: CHAIN_ID, rpcUrls: [proxy.url] }),
          logger,
          ...gapConfig,
        });
        const n = await executor.prepare(transfer);
        const next = await executor.prepare(transfer);
        expect(next.nonce).toBe(n.nonce + 1);
        const { sending: sendingNext } = await sendFirst(executor, next, proxy);
        const error = await executor.send(n).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(BroadcastRejectedError);

        // The first fillers are refused too (as with an empty balance); later rounds get one in.
        expect((await sendingNext).status).toBe("success");
        expect(refusals.left).toBe(0);
        const filler = await client.getTransaction({ hash: await hashAtNonce(address, n.nonce) });
        expect(filler.to?.toLowerCase()).toBe(address.toLowerCase());
        expect(filler.value).toBe(0n);

        const { prepared, receipt } = await executor.execute(transfer);
        expect(prepared.nonce).toBe(n.nonce + 2);
        expect(receipt.status).toBe("success");
        expect(entries.some(({ entry }) => entry.event === "nonce_gap_filled")).toBe(true);
      } finally {
        proxy.stop();
      }
    }, 30_000);

    test("a broadcast of nonce n stalled longer than any fixed retry window is offered until it is mined", async () => {
      const [key] = keys(56, 1) as [Hex];
      const address = privateKeyToAccount(key).address;
      const stall = { until: 0, nonce: -1 };
      const proxy = countingProxy(rpcUrl, async (call) => {
        const sent = await broadcastOf(call);
        const stalled =
          sent && sameAddress(sent.from, address) && sent.nonce === stall.nonce && Date.now() < stall.until;
        return stalled ? "unavailable" : undefined;
      });
      try {
        const executor = executorFor([key], {
          client: createChainClient({ chainId: CHAIN_ID, rpcUrls: [proxy.url] }),
          ...gapConfig,
          // The old fixed retries (5 × replaceAfterMs) would give up after 1.5 s.
          replaceAfterMs: 300,
        });
        const n = await executor.prepare(transfer);
        const next = await executor.prepare(transfer);
        Object.assign(stall, { nonce: n.nonce, until: Date.now() + 3_000 });
        const { sending: sendingNext } = await sendFirst(executor, next, proxy);
        expect(await executor.send(n).catch((caught: unknown) => caught)).toBeInstanceOf(RpcUnavailableError);

        expect((await sendingNext).status).toBe("success");
        expect((await executor.waitForReceipt(n.hash, 5_000))?.status).toBe("success"); // the original, not a filler
        const { prepared, receipt } = await executor.execute(transfer);
        expect(prepared.nonce).toBe(n.nonce + 2);
        expect(receipt.status).toBe("success");
      } finally {
        proxy.stop();
      }
    }, 30_000);

    test("a transaction the node dropped is offered again when its receipt times out", async () => {
      const executor = executorFor(keys(57, 1), { ...gapConfig, receiptTimeoutMs: 1_000 });
      const n = await executor.prepare(transfer);
      const next = await executor.prepare(transfer);
      const { waitingNext } = await withManualMining(async () => {
        const sendingN = executor.send(n);
        await until(async () => (await rpc("eth_getTransactionByHash", [n.hash])) !== null);
        await rpc("anvil_dropTransaction", [n.hash]);
        const sendingNext = executor.send(next);
        expect(await sendingN.catch((caught: unknown) => caught)).toBeInstanceOf(ReceiptTimeoutError);
        expect(await sendingNext.catch((caught: unknown) => caught)).toBeInstanceOf(ReceiptTimeoutError);
        // The re-sync after the timeout finds nonce n missing from the node and offers the original again.
        await until(async () => (await rpc("eth_getTransactionByHash", [n.hash])) !== null);
        return { waitingNext: executor.waitForReceipt(next.hash, 5_000) };
      });
      expect((await waitingNext)?.status).toBe("success");
      expect((await executor.waitForReceipt(n.hash, 5_000))?.status).toBe("success");
      const { prepared, receipt } = await executor.execute(transfer);
      expect(prepared.nonce).toBe(n.nonce + 2);
      expect(receipt.status).toBe("success");
    }, 30_000);

    test("a key with a gap leaves rotation until it is repaired", async () => {
      const [gapped, healthy] = keys(58, 2) as [Hex, Hex];
      const gappedAddress = privateKeyToAccount(gapped).address;
      const refuse = { on: true };
      const proxy = countingProxy(rpcUrl, async (call) => {
        const sent = await broadcastOf(call);
        if (!sent || !refuse.on || !sameAddress(sent.from, gappedAddress)) return undefined;
        const first = await client.getTransactionCount({ address: gappedAddress, blockTag: "latest" });
        return sent.nonce === first ? { refuse: "insufficient funds for gas * price + value" } : undefined;
      });
      try {
        const executor = executorFor([gapped, healthy], {
          client: createChainClient({ chainId: CHAIN_ID, rpcUrls: [proxy.url] }),
          ...gapConfig,
        });
        const n = await executor.prepare(transfer);
        const other = await executor.prepare(transfer);
        const next = await executor.prepare(transfer);
        expect([n.from, next.from]).toEqual([gappedAddress, gappedAddress]);
        expect(sameAddress(other.from, gappedAddress)).toBe(false);
        const { sending: sendingNext } = await sendFirst(executor, next, proxy);
        expect(await executor.send(n).catch((caught: unknown) => caught)).toBeInstanceOf(BroadcastRejectedError);
        await executor.send(other);

        const whileGapped = await Promise.all(Array.from({ length: 6 }, () => executor.execute(transfer)));
        expect(whileGapped.every(({ prepared }) => !sameAddress(prepared.from, gappedAddress))).toBe(true);

        refuse.on = false;
        expect((await sendingNext).status).toBe("success");
        await until(async () => {
          const { prepared } = await executor.execute(transfer);
          return sameAddress(prepared.from, gappedAddress);
        });
      } finally {
        proxy.stop();
      }
    }, 30_000);
  });
});
