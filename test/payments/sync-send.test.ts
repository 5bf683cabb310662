import { afterAll, describe, expect, test } from "bun:test";
import { type Hex, keccak256 } from "viem";
import { signedPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, randomAddress, tokenBalance } from "../support/chain";
import { type JsonRpcCall, jsonRpcProxy } from "../support/json-rpc-proxy";
import { trackServices } from "../support/service";

// Settles on bsc through a JSON-RPC proxy in front of the devnet node (anvil 1.7.1 serves EIP-7966's
// eth_sendRawTransactionSync), so the test sees which calls the service makes and can make the sync call fail.

const services = trackServices();
const proxies: { stop(): void }[] = [];
afterAll(() => {
  services.stopAll();
  for (const proxy of proxies) proxy.stop();
});

const c = chainOf("bsc");
const unit = 10n ** BigInt(c.token.decimals);

function proxied(hooks: Parameters<typeof jsonRpcProxy>[1] = {}, blockTimeMs?: number) {
  const proxy = jsonRpcProxy(c.info.rpcUrl, hooks);
  proxies.push(proxy);
  const service = services.start({}, (config) => {
    const bsc = config.networks.bsc;
    if (!bsc) throw new Error("bsc is not configured");
    bsc.rpcUrls = [proxy.url];
    if (blockTimeMs) bsc.blockTimeMs = blockTimeMs;
  });
  return { proxy, service };
}

async function readyPayment(value: bigint) {
  const payer = await freshPayer("bsc");
  await approveRelayer("bsc", payer.key, 1000n * unit);
  const to = randomAddress();
  return { payer, to, body: await signedPayment({ network: "bsc", key: payer.key, to, value }) };
}

/** The raw transaction of a sync send; undefined for the start's probe (an empty transaction). */
const sentRaw = (call: JsonRpcCall) =>
  call.method === "eth_sendRawTransactionSync" && call.params?.[0] !== "0x" ? (call.params?.[0] as Hex) : undefined;

async function sendPlain(raw: Hex) {
  await fetch(c.info.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_sendRawTransaction", params: [raw] }),
  });
}

describe("bsc: broadcast with eth_sendRawTransactionSync", () => {
  test("the settle's receipt comes from the send: no receipt polling", async () => {
    const { proxy, service } = proxied();
    const value = 3n * unit;
    const { payer, to, body } = await readyPayment(value);
    const before = await tokenBalance("bsc", c.token.address, payer.address);
    proxy.counts.clear();

    const response = await service.post("/settle", body);
    expect(response.status).toBe(200);
    const receipt = await c.public.getTransactionReceipt({ hash: response.body.transaction });
    expect(receipt.status).toBe("success");
    expect(Number(receipt.blockNumber)).toBe(response.body.blockNumber);
    expect(proxy.counts.get("eth_sendRawTransactionSync")).toBe(1);
    expect(proxy.counts.get("eth_sendRawTransaction") ?? 0).toBe(0);
    expect(proxy.counts.get("eth_getTransactionReceipt") ?? 0).toBe(0);
    expect(await tokenBalance("bsc", c.token.address, to)).toBe(value);
    expect(await tokenBalance("bsc", c.token.address, payer.address)).toBe(before - value);
  });

  test('"never" broadcasts the plain way and polls for the receipt', async () => {
    const proxy = jsonRpcProxy(c.info.rpcUrl);
    proxies.push(proxy);
    const service = services.start({}, (config) => {
      const bsc = config.networks.bsc;
      if (!bsc) throw new Error("bsc is not configured");
      bsc.rpcUrls = [proxy.url];
      bsc.sendRawTransactionSync = "never";
    });
    const value = 2n * unit;
    const { to, body } = await readyPayment(value);
    const response = await service.post("/settle", body);
    expect(response.status).toBe(200);
    expect(proxy.counts.get("eth_sendRawTransactionSync") ?? 0).toBe(0);
    expect(proxy.counts.get("eth_sendRawTransaction")).toBe(1);
    expect(proxy.counts.get("eth_getTransactionReceipt")).toBeGreaterThanOrEqual(1);
    expect(await tokenBalance("bsc", c.token.address, to)).toBe(value);
  });

  test("the node's sync timeout (EIP-7966 code 4): the plain path takes over, the payment is made once", async () => {
    const journaled: (string | null | undefined)[] = [];
    let service: ReturnType<typeof proxied>["service"] | undefined;
    let key: { network: string; payer: string; nonce: string } | undefined;
    const { proxy, service: started } = proxied({
      async answer(call) {
        const raw = sentRaw(call);
        if (!raw) return undefined;
        // What a node does when no block comes in time: it holds the transaction and answers without a receipt.
        journaled.push(key && service?.store.find(key)?.txHash);
        await sendPlain(raw);
        return { error: { code: 4, message: "transaction not included within the timeout", data: keccak256(raw) } };
      },
    });
    service = started;
    const value = 5n * unit;
    const { payer, to, body } = await readyPayment(value);
    key = { network: "bsc", payer: payer.address, nonce: body.paymentPayload.payload.authorization.nonce };
    const before = await tokenBalance("bsc", c.token.address, payer.address);

    const response = await service.post("/settle", body);
    expect(response.status).toBe(200);
    // The record held the transaction before the node saw it.
    expect(journaled).toEqual([response.body.transaction]);
    expect(proxy.counts.get("eth_sendRawTransaction")).toBeGreaterThanOrEqual(1);
    const again = await service.post("/settle", body);
    expect(again.status).toBe(200);
    expect(again.body.transaction).toBe(response.body.transaction);
    expect(await tokenBalance("bsc", c.token.address, to)).toBe(value);
    expect(await tokenBalance("bsc", c.token.address, payer.address)).toBe(before - value);
  });

  test("no answer within the sync send's own timeout: the transaction is broadcast again and settles once", async () => {
    let held = 0;
    // blockTimeMs 100: the sync send waits max(2 s, 4 blocks) = 2 s, then gives up on the call.
    const { proxy, service } = proxied(
      {
        async answer(call) {
          if (!sentRaw(call)) return undefined;
          // The request is lost on the way: the node never sees it and the caller hears nothing.
          held += 1;
          await Bun.sleep(3_000);
          return { error: { code: -32603, message: "too late" } };
        },
      },
      100,
    );
    const value = 4n * unit;
    const { payer, to, body } = await readyPayment(value);
    const before = await tokenBalance("bsc", c.token.address, payer.address);

    const started = performance.now();
    const response = await service.post("/settle", body);
    expect(response.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(held).toBe(1);
    expect(proxy.counts.get("eth_sendRawTransaction")).toBe(1);
    expect(proxy.counts.get("eth_getTransactionReceipt")).toBeGreaterThanOrEqual(1);
    expect(await tokenBalance("bsc", c.token.address, to)).toBe(value);
    expect(await tokenBalance("bsc", c.token.address, payer.address)).toBe(before - value);
  });
});
