import { describe, expect, test } from "bun:test";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { BroadcastRejectedError, ReceiptTimeoutError, RpcUnavailableError } from "../../src/chain/errors";
import type { Executor, PreparedTransaction } from "../../src/chain/executor";
import { createChainClient } from "../../src/chain/rpc";
import {
  broadcastOf,
  CHAIN_ID,
  client,
  countingProxy,
  executorFor,
  hashAtNonce,
  keys,
  recordingLogger,
  rpc,
  rpcUrl,
  sameAddress,
  transfer,
  useExecutorAnvil,
  withManualMining,
} from "../support/executor-anvil";

useExecutorAnvil();

describe("executor against anvil: nonce gaps", () => {
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
      const stalled = sent && sameAddress(sent.from, address) && sent.nonce === stall.nonce && Date.now() < stall.until;
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
