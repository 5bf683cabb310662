import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Instance } from "prool";
import { type Address, type Hex, type PublicClient, parseEther, parseGwei, toHex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { freePort } from "../../scripts/devnet/ports";
import { createExecutor, type Executor } from "../../src/chain/executor";
import { createNewHeads, type NewHeads } from "../../src/chain/new-heads";
import { createChainClient } from "../../src/chain/rpc";
import { createLogger } from "../../src/logger";
import { webSocketProxy } from "../support/ws-proxy";

// The receipt poller driven by a WebSocket newHeads subscription, against a real anvil mining a block every second
// (anvil serves WebSocket on its HTTP port). HTTP calls go through a counting proxy, the socket through a proxy the
// test can cut.

const CHAIN_ID = 56;
const RECIPIENT: Address = "0x000000000000000000000000000000000000dEaD";
const transfer = { to: RECIPIENT, data: "0x" as Hex, value: 1n, gas: 21_000n };
const MNEMONIC = "test test test test test test test test test test test junk";
function keyAt(index: number): Hex {
  const key = mnemonicToAccount(MNEMONIC, { addressIndex: index }).getHdKey().privateKey;
  if (!key) throw new Error(`no key at ${index}`);
  return toHex(key);
}

let anvil: ReturnType<typeof Instance.anvil>;
let port: number;
let direct: PublicClient;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  port = await freePort();
  anvil = Instance.anvil({
    binary: `${process.cwd()}/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil`,
    chainId: CHAIN_ID,
    host: "127.0.0.1",
    port,
    blockTime: 1,
  } as Parameters<typeof Instance.anvil>[0]);
  await anvil.start();
  direct = createChainClient({ chainId: CHAIN_ID, rpcUrls: [`http://127.0.0.1:${port}`] });
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) cleanup();
  await anvil?.stop();
});

/** Counts JSON-RPC methods (batches included) on their way to anvil. */
function countingProxy() {
  const counts = new Map<string, number>();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const body = await request.text();
      const parsed = JSON.parse(body) as { method: string } | { method: string }[];
      for (const call of Array.isArray(parsed) ? parsed : [parsed])
        counts.set(call.method, (counts.get(call.method) ?? 0) + 1);
      const response = await fetch(`http://127.0.0.1:${port}`, {
        method: "POST",
        body,
        headers: { "content-type": "application/json" },
      });
      return new Response(await response.text(), { headers: { "content-type": "application/json" } });
    },
  });
  cleanups.push(() => server.stop(true));
  return { url: `http://127.0.0.1:${server.port}`, counts };
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(20);
  }
}

function setUp(wsUrl: string, keyIndex: number, keyCount: number) {
  const http = countingProxy();
  const logger = createLogger({ silent: true });
  const heads: NewHeads = createNewHeads({ url: wsUrl, logger, backoffMs: 100, maxBackoffMs: 400 });
  const privateKeys = Array.from({ length: keyCount }, (_, i) => keyAt(keyIndex + i));
  const executor: Executor = createExecutor({
    client: createChainClient({ chainId: CHAIN_ID, rpcUrls: [http.url] }),
    chainId: CHAIN_ID,
    privateKeys,
    maxFeePerGasCap: parseGwei("1000"),
    receiptTimeoutMs: 20_000,
    replaceAfterMs: 20_000,
    pollIntervalMs: 100,
    newHeads: heads,
    newHeadsStaleAfterMs: 3_000,
    logger,
  });
  cleanups.push(
    () => executor.stop(),
    () => heads.stop(),
  );
  return { http, heads, executor, privateKeys };
}

describe("receipts driven by a newHeads subscription (anvil, 1-s blocks)", () => {
  test("receipts come with the pushed heads: no eth_blockNumber polling, one receipt batch per block", async () => {
    const { http, heads, executor } = setUp(`ws://127.0.0.1:${port}`, 60, 4);
    // The first head gives the block the first broadcast is known to follow (else one eth_blockNumber read).
    await until(() => heads.lastHeadAt > 0);
    const results = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const { receipt } = await executor.execute(transfer);
        const block = await direct.getBlock({ blockNumber: receipt.blockNumber });
        return { receipt, lateMs: Date.now() - Number(block.timestamp) * 1000 };
      }),
    );
    expect(results.every(({ receipt }) => receipt.status === "success")).toBe(true);
    expect(http.counts.get("eth_blockNumber") ?? 0).toBe(0);
    const blocks = new Set(results.map(({ receipt }) => receipt.blockNumber));
    // Each transaction is asked for when it is first due and then once per block until mined: at most a few each.
    expect(http.counts.get("eth_getTransactionReceipt") ?? 0).toBeLessThanOrEqual(12 * (blocks.size + 1));
    // The receipt is there within the block second it was mined in, not a poll interval later (block timestamps
    // are whole seconds, so up to 1 s plus the test's own block read).
    for (const { lateMs } of results) expect(lateMs).toBeLessThan(2_000);
  }, 30_000);

  test("a socket that dies falls back to polling, transactions still get their receipts, and it comes back", async () => {
    const sockets = webSocketProxy(`ws://127.0.0.1:${port}`, cleanups);
    const { http, heads, executor } = setUp(sockets.url, 70, 4);
    await until(() => heads.live);

    sockets.cut();
    await until(() => !heads.live);
    const whileDown = await Promise.all(Array.from({ length: 6 }, () => executor.execute(transfer)));
    expect(whileDown.every(({ receipt }) => receipt.status === "success")).toBe(true);
    const polled = http.counts.get("eth_blockNumber") ?? 0;
    expect(polled).toBeGreaterThan(0);

    sockets.restore();
    await until(() => heads.live);
    const afterwards = await Promise.all(Array.from({ length: 6 }, () => executor.execute(transfer)));
    expect(afterwards.every(({ receipt }) => receipt.status === "success")).toBe(true);
    // Back on the subscription: no more polling.
    expect(http.counts.get("eth_blockNumber") ?? 0).toBe(polled);
  }, 40_000);

  test("a socket that stays open but goes silent does not stall receipts, and is opened again", async () => {
    // A socket that subscribes and then never pushes a head (a stalled provider): after three blocks without a head,
    // the poller reads eth_blockNumber again.
    let connections = 0;
    const server = Bun.serve<undefined>({
      port: 0,
      hostname: "127.0.0.1",
      fetch(request, srv) {
        connections += 1;
        return srv.upgrade(request, { data: undefined }) ? undefined : new Response("no", { status: 400 });
      },
      websocket: {
        message(socket, message) {
          const { id } = JSON.parse(String(message)) as { id: number };
          socket.send(JSON.stringify({ jsonrpc: "2.0", id, result: "0x1" }));
        },
      },
    });
    cleanups.push(() => server.stop(true));
    const { http, heads, executor } = setUp(`ws://127.0.0.1:${server.port}`, 80, 1);
    await until(() => heads.live);
    const started = Date.now();
    const { receipt } = await executor.execute(transfer);
    expect(receipt.status).toBe("success");
    expect(http.counts.get("eth_blockNumber") ?? 0).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(6_000);
    // Two blocks came, polled, that the socket never pushed: it is opened again.
    for (let round = 0; round < 4 && connections < 2; round++) await executor.execute(transfer);
    await until(() => connections >= 2, 2_000);
  }, 20_000);
});

// Funds for the test keys (anvil's own accounts are 0-9; these are further down the same mnemonic).
beforeAll(async () => {
  const accounts = [60, 61, 62, 63, 70, 71, 72, 73, 80].map((index) =>
    mnemonicToAccount(MNEMONIC, { addressIndex: index }),
  );
  await Promise.all(
    accounts.map((account) =>
      direct.request({ method: "anvil_setBalance", params: [account.address, toHex(parseEther("10"))] } as never),
    ),
  );
});
