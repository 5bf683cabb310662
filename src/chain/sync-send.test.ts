import { afterAll, describe, expect, test } from "bun:test";
import { type Hex, keccak256 } from "viem";
import { createLogger } from "../logger";
import { feeCacheMs, receiptPollIntervalMs, syncSendTimeoutMs } from "./networks";
import { createSyncSendClient, createSyncSender, type SyncSendMode } from "./sync-send";

// A scripted JSON-RPC node (no chain): each test says what eth_sendRawTransactionSync answers.

type Call = { id: number; method: string; params: unknown[] };
let answer: (call: Call) => unknown = () => ({ error: { code: -32601, message: "Method not found" } });
const calls: Call[] = [];
const node = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    const call = (await request.json()) as Call;
    calls.push(call);
    const result = await answer(call);
    if (result === "hang") {
      await Bun.sleep(1_000);
      return new Response("late", { status: 504 });
    }
    if (result === "down") return new Response("unavailable", { status: 503 });
    return Response.json({ jsonrpc: "2.0", id: call.id, ...(result as object) });
  },
});
afterAll(() => node.stop(true));

const logger = createLogger({ silent: true });
const sender = (mode: SyncSendMode, timeoutMs = 500) =>
  createSyncSender({ client: createSyncSendClient(`http://127.0.0.1:${node.port}`, timeoutMs), mode, logger });

const HASH = `0x${"ab".repeat(32)}` as Hex;
const keccakOf = (raw: Hex) => keccak256(raw);
const receiptOf = (hash: Hex) => ({
  blockHash: `0x${"11".repeat(32)}`,
  blockNumber: "0x10",
  contractAddress: null,
  cumulativeGasUsed: "0x5208",
  effectiveGasPrice: "0x1",
  from: `0x${"22".repeat(20)}`,
  gasUsed: "0x5208",
  logs: [],
  logsBloom: `0x${"00".repeat(256)}`,
  status: "0x1",
  to: `0x${"33".repeat(20)}`,
  transactionHash: hash,
  transactionIndex: "0x0",
  type: "0x2",
});
const sendsOf = () => calls.filter((call) => call.method === "eth_sendRawTransactionSync" && call.params[0] !== "0x");

describe("sync send", () => {
  test("auto: a node that refuses the probe's empty transaction serves the method", async () => {
    calls.length = 0;
    answer = () => ({ error: { code: -32602, message: "Empty transaction data" } });
    const sync = sender("auto");
    expect(await sync.enabled()).toBe(true);
    expect(await sync.enabled()).toBe(true);
    expect(calls).toHaveLength(1); // probed once
    expect(calls[0]).toMatchObject({ method: "eth_sendRawTransactionSync", params: ["0x"] });
  });

  test('auto: "method not found" turns it off; "never" and "always" ask nothing', async () => {
    calls.length = 0;
    answer = () => ({ error: { code: -32601, message: "Method not found" } });
    expect(await sender("auto").enabled()).toBe(false);
    expect(await sender("never").enabled()).toBe(false);
    expect(await sender("always").enabled()).toBe(true);
    expect(calls).toHaveLength(1);
  });

  test("auto: no answer to the probe decides nothing; it is asked again later, in the background", async () => {
    calls.length = 0;
    answer = () => "down";
    const later = createSyncSender({
      client: createSyncSendClient(`http://127.0.0.1:${node.port}`, 500),
      mode: "auto",
      logger,
      reprobeMs: 0,
    });
    expect(await later.enabled()).toBe(false);
    expect(await sender("auto").enabled()).toBe(false);
    answer = () => ({ error: { code: -32602, message: "rlp: empty input" } });
    expect(await later.enabled()).toBe(false); // not waited for
    await Bun.sleep(50);
    expect(await later.enabled()).toBe(true);
    expect(calls).toHaveLength(3);
  });

  test("a probe nobody answered is not repeated before reprobeMs", async () => {
    calls.length = 0;
    answer = () => "down";
    const sync = sender("auto");
    expect(await sync.enabled()).toBe(false);
    answer = () => ({ error: { code: -32602, message: "rlp: empty input" } });
    expect(await sync.enabled()).toBe(false);
    expect(calls).toHaveLength(1);
  });

  test("the receipt in the answer is taken, once, without a retry", async () => {
    calls.length = 0;
    answer = () => ({ result: receiptOf(HASH) });
    const result = await sender("always").send("0x02f8", HASH);
    expect(result.kind).toBe("mined");
    if (result.kind === "mined") {
      expect(result.receipt.transactionHash).toBe(HASH);
      expect(result.receipt.blockNumber).toBe(16n);
      expect(result.receipt.status).toBe("success");
    }
    expect(sendsOf()).toHaveLength(1);
  });

  test("a receipt of another transaction is no receipt", async () => {
    answer = () => ({ result: receiptOf(`0x${"cd".repeat(32)}`) });
    expect((await sender("always").send("0x02f8", HASH)).kind).toBe("no_receipt");
  });

  test("any error gives no receipt and sends nothing again: the node's timeout, a refusal, a dead node, our timeout", async () => {
    for (const scripted of [
      { error: { code: 4, message: "transaction not included within the timeout", data: HASH } },
      { error: { code: -32603, message: "Transaction confirmation timeout" } },
      { error: { code: -32000, message: "nonce too low" } },
      "down",
      "hang",
    ]) {
      calls.length = 0;
      answer = () => scripted;
      const started = performance.now();
      expect(await sender("always", 300).send("0x02f8", HASH)).toMatchObject({ kind: "no_receipt" });
      expect(performance.now() - started).toBeLessThan(900);
      expect(sendsOf()).toHaveLength(1);
    }
  });

  test("beyond maxInFlight sync sends waiting at once, a send is not made ('busy'); once one ends, sends go again", async () => {
    calls.length = 0;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    answer = async (call) => {
      await held;
      return { result: receiptOf(call.params[0] === "0x" ? HASH : (keccakOf(call.params[0] as Hex) as Hex)) };
    };
    const sync = createSyncSender({
      client: createSyncSendClient(`http://127.0.0.1:${node.port}`, 2_000),
      mode: "always",
      logger,
      maxInFlight: 2,
    });
    const raws = ["0x01", "0x02", "0x03"] as Hex[];
    const first = raws.slice(0, 2).map((raw) => sync.send(raw, keccakOf(raw)));
    expect(await sync.send(raws[2] as Hex, keccakOf(raws[2] as Hex))).toEqual({ kind: "busy" });
    release();
    for (const sent of await Promise.all(first)) expect(sent.kind).toBe("mined");
    expect(sendsOf()).toHaveLength(2); // the busy one was never sent
    expect((await sync.send(raws[2] as Hex, keccakOf(raws[2] as Hex))).kind).toBe("mined");
    expect(sendsOf()).toHaveLength(3);
  });

  test("the number of sync sends in flight goes back down after failures too", async () => {
    calls.length = 0;
    answer = () => "down";
    const sync = createSyncSender({
      client: createSyncSendClient(`http://127.0.0.1:${node.port}`, 500),
      mode: "always",
      logger,
      maxInFlight: 1,
    });
    for (let i = 0; i < 3; i++) expect((await sync.send("0x01", HASH)).kind).toBe("no_receipt");
    expect(sendsOf()).toHaveLength(3);
  });

  test('auto: "method not found" at a send turns it off for the sends after it', async () => {
    answer = (call) =>
      call.params[0] === "0x"
        ? { error: { code: -32602, message: "Empty transaction data" } }
        : { error: { code: -32601, message: "Method not found" } };
    const sync = sender("auto");
    expect(await sync.enabled()).toBe(true);
    expect((await sync.send("0x02f8", HASH)).kind).toBe("no_receipt");
    expect(await sync.enabled()).toBe(false);
  });
});

describe("timing from the block time", () => {
  test("receipts are polled at a tenth of a block, within 25 ms and 1 s", () => {
    expect(receiptPollIntervalMs(750)).toBe(75);
    expect(receiptPollIntervalMs(2_000)).toBe(200);
    expect(receiptPollIntervalMs(100)).toBe(25);
    expect(receiptPollIntervalMs(60_000)).toBe(1_000);
  });

  test("fees are reused for three blocks, at least 1 s", () => {
    expect(feeCacheMs(750)).toBe(2_250);
    expect(feeCacheMs(2_000)).toBe(6_000);
    expect(feeCacheMs(100)).toBe(1_000);
  });

  test("a sync send waits four blocks, at least 2 s, never past the first fee bump or the receipt timeout", () => {
    expect(syncSendTimeoutMs(750, 15_000, 500)).toBe(500);
    expect(syncSendTimeoutMs(750, 15_000)).toBe(3_000);
    expect(syncSendTimeoutMs(2_000, 15_000)).toBe(8_000);
    expect(syncSendTimeoutMs(100, 15_000)).toBe(2_000);
    expect(syncSendTimeoutMs(12_000, 15_000)).toBe(15_000);
  });
});
