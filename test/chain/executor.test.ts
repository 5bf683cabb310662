import { describe, expect, test } from "bun:test";
import { type Hex, parseEther, parseGwei, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { freePort } from "../../scripts/devnet/ports";
import { BroadcastRejectedError, ReceiptTimeoutError, RpcUnavailableError } from "../../src/chain/errors";
import { createChainClient } from "../../src/chain/rpc";
import { createSyncSendClient, createSyncSender } from "../../src/chain/sync-send";
import {
  CHAIN_ID,
  client,
  countingProxy,
  executorFor,
  inPool,
  keys,
  REVERTER,
  recordingLogger,
  rpc,
  rpcUrl,
  transfer,
  useExecutorAnvil,
  withManualMining,
} from "../support/executor-anvil";

useExecutorAnvil();

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
});
