// The executor tests' own anvil and helpers, shared by the files that test src/chain/executor.ts on it. Its state
// (`client`, `rpcUrl`) is exported as live bindings, set by the hooks useExecutorAnvil registers.
import { afterAll, afterEach, beforeAll } from "bun:test";
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
import { createExecutor, type Executor, type ExecutorConfig } from "../../src/chain/executor";
import { createChainClient } from "../../src/chain/rpc";
import type { Logger } from "../../src/logger";

const MNEMONIC = "test test test test test test test test test test test junk";
export const CHAIN_ID = 56;
export const RECIPIENT: Address = "0x000000000000000000000000000000000000dEaD";
export const REVERTER: Address = "0x00000000000000000000000000000000000bad01";
export const transfer = { to: RECIPIENT, data: "0x" as Hex, value: 1n, gas: 21_000n };

const derived = new Map<number, Hex>();
/** Memoized: every derivation re-runs the mnemonic's PBKDF2. */
export function keyAt(index: number): Hex {
  const cached = derived.get(index);
  if (cached) return cached;
  const key = mnemonicToAccount(MNEMONIC, { addressIndex: index }).getHdKey().privateKey;
  if (!key) throw new Error(`no key at ${index}`);
  derived.set(index, toHex(key));
  return toHex(key);
}
export const keys = (from: number, count: number) => Array.from({ length: count }, (_, i) => keyAt(from + i));

let anvil: ReturnType<typeof Instance.anvil>;
export let rpcUrl: string;
export let client: PublicClient;
const running: Executor[] = [];

export const rpc = (method: string, params: unknown[] = []) =>
  client.request({ method, params } as never) as Promise<unknown>;

export function recordingLogger() {
  const entries: { level: string; entry: Record<string, unknown> }[] = [];
  const logger: Logger = {
    info: (entry) => entries.push({ level: "info", entry }),
    warn: (entry) => entries.push({ level: "warn", entry }),
    error: (entry) => entries.push({ level: "error", entry }),
  };
  return { entries, logger };
}

export function executorFor(privateKeys: Hex[], overrides: Partial<ExecutorConfig> = {}): Executor {
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
export async function inPool<T>(count: number, concurrency: number, task: (index: number) => Promise<T>): Promise<T[]> {
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

export async function withManualMining<T>(run: () => Promise<T>): Promise<T> {
  await rpc("evm_setAutomine", [false]);
  try {
    return await run();
  } finally {
    await rpc("evm_mine");
    await rpc("evm_setAutomine", [true]);
  }
}

export type RpcCall = { id: number; method: string; params?: unknown[] };
/** What the proxy does with one call: forward it (undefined), answer a node error, or fail the whole request. */
export type Verdict = undefined | { refuse: string } | "unavailable";

/**
 * A JSON-RPC proxy that counts methods (batches included), can play dead, and lets `decide` refuse single
 * calls with a node error (the others of a batch go through) or fail the HTTP request.
 */
export function countingProxy(target: string, decide: (call: RpcCall) => Verdict | Promise<Verdict> = () => undefined) {
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
export async function broadcastOf(call: RpcCall): Promise<{ from: Address; nonce: number } | undefined> {
  if (call.method !== "eth_sendRawTransaction") return undefined;
  const raw = call.params?.[0] as TransactionSerialized;
  return {
    from: await recoverTransactionAddress({ serializedTransaction: raw }),
    nonce: parseTransaction(raw).nonce ?? 0,
  };
}

export const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The hash of the mined transaction of `address` at `nonce`, looked up block by block from the newest. */
export async function hashAtNonce(address: Address, nonce: number): Promise<Hex> {
  for (let number = await client.getBlockNumber(); number >= 0n; number--) {
    const block = await client.getBlock({ blockNumber: number, includeTransactions: true });
    const found = block.transactions.find((tx) => sameAddress(tx.from, address) && tx.nonce === nonce);
    if (found) return found.hash;
  }
  throw new Error(`no transaction of ${address} at nonce ${nonce}`);
}

/**
 * Registers the file's hooks: an anvil of its own (chain id 56) with 32 funded keys of the test mnemonic and a
 * contract that always reverts at REVERTER; executors made by executorFor are stopped after each test.
 */
export function useExecutorAnvil() {
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
}
