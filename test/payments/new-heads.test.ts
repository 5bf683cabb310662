import { afterAll, describe, expect, test } from "bun:test";
import { signedPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, randomAddress, tokenBalance } from "../support/chain";
import { jsonRpcProxy } from "../support/json-rpc-proxy";
import { trackServices } from "../support/service";
import { webSocketProxy } from "../support/ws-proxy";

// Settles on bsc with networks.bsc.wsUrl set: receipts are asked for when the node pushes a new head over
// eth_subscribe("newHeads") (anvil serves WebSocket on its HTTP port), not by polling eth_blockNumber. The sync send
// is off so that every receipt comes through the poller; HTTP goes through a counting proxy, the socket through a
// proxy the test can cut.

const services = trackServices();
const stops: (() => void)[] = [];
afterAll(() => {
  services.stopAll();
  for (const stop of stops) stop();
});

const c = chainOf("bsc");
const unit = 10n ** BigInt(c.token.decimals);
const nodeWsUrl = c.info.rpcUrl.replace(/^http/, "ws");

function serviceWith(wsUrl: string) {
  const proxy = jsonRpcProxy(c.info.rpcUrl);
  stops.push(proxy.stop);
  const service = services.start({}, (config) => {
    const bsc = config.networks.bsc;
    if (!bsc) throw new Error("bsc is not configured");
    bsc.rpcUrls = [proxy.url];
    bsc.wsUrl = wsUrl;
    bsc.sendRawTransactionSync = "never";
    bsc.blockTimeMs = 1_000;
    // The incognito leaf indexer reads eth_blockNumber on its own schedule; off here so the count is the poller's.
    delete bsc.contracts.privacyPool;
  });
  return { proxy, service };
}

async function readyPayments(count: number) {
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const payer = await freshPayer("bsc");
      await approveRelayer("bsc", payer.key, 1000n * unit);
      const to = randomAddress();
      const value = BigInt(index + 1) * unit;
      return { payer, to, value, body: await signedPayment({ network: "bsc", key: payer.key, to, value }) };
    }),
  );
}

/** Runs `run` on 1-s blocks, then mines what is left and goes back to automine. */
async function onOneSecondBlocks<T>(run: () => Promise<T>): Promise<T> {
  await c.test.setAutomine(false);
  await c.test.setIntervalMining({ interval: 1 });
  try {
    return await run();
  } finally {
    await c.test.setIntervalMining({ interval: 0 });
    await c.test.mine({ blocks: 1 });
    await c.test.setAutomine(true);
  }
}

async function expectPaid(payments: Awaited<ReturnType<typeof readyPayments>>, responses: { status: number }[]) {
  expect(responses.map((response) => response.status)).toEqual(payments.map(() => 200));
  for (const { to, value } of payments) expect(await tokenBalance("bsc", c.token.address, to)).toBe(value);
}

describe("bsc: receipts driven by a newHeads subscription (wsUrl)", () => {
  test("settles on 1-s blocks get their receipts with no eth_blockNumber polling", async () => {
    const payments = await readyPayments(6);
    const { proxy, service } = serviceWith(nodeWsUrl);
    const responses = await onOneSecondBlocks(async () => {
      // One head first: it is the block the first broadcast is known to follow (else one eth_blockNumber read).
      await Bun.sleep(1_500);
      proxy.counts.clear();
      return Promise.all(payments.map(({ body }) => service.post("/settle", body)));
    });
    await expectPaid(payments, responses);
    expect(proxy.counts.get("eth_sendRawTransaction")).toBe(payments.length);
    expect(proxy.counts.get("eth_getTransactionReceipt") ?? 0).toBeGreaterThanOrEqual(payments.length);
    expect(proxy.counts.get("eth_blockNumber") ?? 0).toBe(0);
  }, 30_000);

  test("a socket that dies: the poller falls back to eth_blockNumber and the settles complete", async () => {
    const payments = await readyPayments(4);
    const sockets = webSocketProxy(nodeWsUrl, stops);
    const { proxy, service } = serviceWith(sockets.url);
    const responses = await onOneSecondBlocks(async () => {
      await Bun.sleep(1_500);
      sockets.cut();
      proxy.counts.clear();
      return Promise.all(payments.map(({ body }) => service.post("/settle", body)));
    });
    await expectPaid(payments, responses);
    expect(proxy.counts.get("eth_blockNumber") ?? 0).toBeGreaterThan(0);
    // Each settled once: a second settle answers the same transaction.
    const again = await service.post("/settle", payments[0]?.body);
    expect(again.status).toBe(200);
    expect(again.body.transaction).toBe(
      responses[0] && (responses[0] as { body: { transaction: string } }).body.transaction,
    );
  }, 30_000);
});
