// relay402-mcp as an agent's host runs it: a real process on stdio, spoken to with the MCP SDK's client, paying
// on the devnet through a listening service. The chain judges what moved; the spend ledger and the payment log
// are read from the files the operator would read.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { type Address, formatUnits, type Hex } from "viem";
import { chainOf, freshPayer, randomAddress, tokenBalance } from "../support/chain";
import { swapTokensOf } from "../support/dex";
import { trackServices } from "../support/service";
import { x402Shop } from "../support/x402-shop";

const network = "bsc";
const c = chainOf(network);
const services = trackServices();
const service = services.start();
const server = Bun.serve({ port: 0, fetch: (request) => service.app.handle(request) });

// A shop selling an item for x402 on base, with relay402 (the same service) as its facilitator.
const base = chainOf("base");
const price = 1_250_000n;
const shopPayTo = randomAddress();
const shop = x402Shop({
  facilitator: new HTTPFacilitatorClient({ url: server.url.origin }),
  network: "eip155:8453",
  payTo: shopPayTo,
  asset: base.token.address,
  amount: price,
  extra: { name: "USD Coin", version: "2" },
});
const { itemUrl } = shop;

afterAll(() => {
  shop.stop();
  server.stop(true);
  services.stopAll();
});

// The two ways to start it: the client package's bin (relay402-mcp) and the service's command line (relay402 mcp).
const ENTRIES = {
  bin: [join(import.meta.dir, "../../packages/client/src/mcp/main.ts")],
  cli: [join(import.meta.dir, "../../src/main.ts"), "mcp"],
};
const units = (amount: string) => BigInt(Math.round(Number(amount) * 100)) * 10n ** BigInt(c.token.decimals - 2);
const balance = (holder: Address) => tokenBalance(network, c.token.address, holder);

type Limits = { perPayment?: string; perDay?: string; total?: string };

/** A data folder with the server's config file: the devnet's RPC, these limits on the devnet token. */
function configDir(limits: Limits, extra: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "relay402-mcp-"));
  const config = {
    rpcUrls: { [network]: c.info.rpcUrl, base: base.info.rpcUrl },
    limits: [
      { network, token: c.token.address, ...limits },
      { network: "base", token: base.token.address, ...limits },
    ],
    ...extra,
  };
  writeFileSync(join(dir, "mcp.json"), JSON.stringify(config));
  return dir;
}

/** Starts relay402-mcp as a child process and connects to it; `stop` closes it and kills it by PID. */
async function startMcp(key: Hex, dir: string, entry: keyof typeof ENTRIES = "bin", url = server.url.origin) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ENTRIES[entry],
    env: {
      PATH: process.env.PATH ?? "",
      RELAY402_URL: url,
      RELAY402_PRIVATE_KEY: key,
      RELAY402_MCP_CONFIG: join(dir, "mcp.json"),
    },
    stderr: "pipe",
  });
  const client = new Client({ name: "relay402-test", version: "0" });
  await client.connect(transport);
  const pid = transport.pid;
  return {
    async call(name: string, args: Record<string, unknown> = {}) {
      const result = (await client.callTool({ name, arguments: args })) as {
        content: { type: string; text: string }[];
        isError?: boolean;
      };
      return { isError: result.isError ?? false, body: JSON.parse(result.content[0]?.text ?? "null") };
    },
    async stop() {
      await client.close().catch(() => undefined);
      if (pid !== null) {
        try {
          process.kill(pid);
        } catch {}
      }
    },
  };
}

describe("relay402-mcp", () => {
  test("a settle answered 202 (in flight) is followed after its Retry-After: the agent is told paid, once", async () => {
    const slow = services.start({}, (config) => {
      Object.assign(config.networks[network] ?? {}, { receiptTimeoutMs: 1500, replaceAfterMs: 60_000 });
    });
    const settles: number[] = [];
    // Blocks stop while the first /settle is handled, so it answers 202; the chain moves on once it has.
    const slowServer = Bun.serve({
      port: 0,
      async fetch(request) {
        const settling = new URL(request.url).pathname === "/settle";
        if (settling && settles.length === 0) await c.test.setAutomine(false);
        const answer = await slow.app.handle(request);
        if (settling) settles.push(answer.status);
        if (settling && answer.status === 202) await c.test.mine({ blocks: 1 }).then(() => c.test.setAutomine(true));
        return answer;
      },
    });
    const payer = await freshPayer(network);
    const payee = randomAddress();
    const mcp = await startMcp(payer.key, configDir({ perPayment: "5" }), "bin", slowServer.url.origin);
    try {
      const args = { network, token: c.token.address, to: payee, amount: "1", idempotencyKey: "in-flight-1" };
      const paid = await mcp.call("relay402_pay", args);
      expect(settles).toEqual([202, 200]);
      expect(paid).toMatchObject({ isError: false, body: { status: "paid", repeated: false } });
      const receipt = await c.public.getTransactionReceipt({ hash: paid.body.transaction });
      expect(receipt.status).toBe("success");
      expect(await balance(payee)).toBe(units("1"));
    } finally {
      await c.test.setAutomine(true);
      await mcp.stop();
      slowServer.stop(true);
    }
  }, 60_000);

  test("lists what it can use, pays exactly what it reports, logs it, and a repeated idempotency key pays once, also through another ledger", async () => {
    const payer = await freshPayer(network);
    const dir = configDir({ perPayment: "5", perDay: "50", total: "100" });
    const payee = randomAddress();
    const args = { network, token: c.token.address, to: payee, amount: "1.5", idempotencyKey: "order-1" };
    const mcp = await startMcp(payer.key, dir);
    try {
      const tools = await mcp.call("relay402_networks");
      expect(tools.body.address).toBe(payer.address);
      const listed = tools.body.networks.find((n: { network: string }) => n.network === network);
      expect(listed.tokens.map((t: { address: string }) => t.address)).toContain(c.token.address);

      const before = await balance(payer.address);
      // The same key twice at once, then once more: one payment on chain.
      const [first, second] = await Promise.all([mcp.call("relay402_pay", args), mcp.call("relay402_pay", args)]);
      const third = await mcp.call("relay402_pay", args);
      for (const result of [first, second, third]) expect(result.isError).toBe(false);
      expect([first.body.repeated, second.body.repeated, third.body.repeated].sort()).toEqual([false, true, true]);
      expect(new Set([first.body.transaction, second.body.transaction, third.body.transaction]).size).toBe(1);
      expect(first.body.amountBaseUnits).toBe(units("1.5").toString());
      expect(await balance(payee)).toBe(BigInt(first.body.amountBaseUnits));
      expect(before - (await balance(payer.address))).toBe(units("1.5"));

      const listedAfter = (await mcp.call("relay402_networks")).body.networks[0].tokens.find(
        (t: { address: string }) => t.address === c.token.address,
      );
      expect(listedAfter).toMatchObject({ limits: { perPayment: "5" }, spent: { last24Hours: "1.5", total: "1.5" } });

      const balances = await mcp.call("relay402_balances");
      const bsc = balances.body.balances.find((b: { network: string }) => b.network === network);
      const mine = bsc.tokens.find((t: { address: string }) => t.address === c.token.address);
      expect(mine.balance).toBe(formatUnits(before - units("1.5"), c.token.decimals));

      const log = readFileSync(join(dir, "payments.log"), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(log.map((line) => line.result).sort()).toEqual(["paid", "repeated", "repeated"]);
      expect(log[0]).toMatchObject({ tool: "relay402_pay", to: payee, amount: "1.5", network });
      expect(JSON.stringify(log)).not.toContain(payer.key.slice(2));
    } finally {
      await mcp.stop();
    }
    // Another server with a ledger of its own: the key's nonce is used on chain, so the relayer refuses it.
    const elsewhere = await startMcp(payer.key, configDir({ perPayment: "5" }));
    try {
      const again = await elsewhere.call("relay402_pay", args);
      expect(again).toMatchObject({ isError: true, body: { code: "nonce_error" } });
      expect(await balance(payee)).toBe(units("1.5"));
    } finally {
      await elsewhere.stop();
    }
  });

  test("refuses what breaks a limit, says which, and nothing moves", async () => {
    const payer = await freshPayer(network);
    const payee = randomAddress();
    const dir = configDir({ perPayment: "5", perDay: "6" }, { allowedRecipients: [payee] });
    const mcp = await startMcp(payer.key, dir);
    try {
      const pay = (amount: string, to: Address = payee) =>
        mcp.call("relay402_pay", { network, token: c.token.address, to, amount });
      const tooBig = await pay("5.01");
      expect(tooBig).toMatchObject({ isError: true, body: { code: "limit_exceeded", limit: "perPayment" } });
      const stranger = randomAddress();
      const elsewhere = await pay("1", stranger);
      expect(elsewhere).toMatchObject({ isError: true, body: { code: "limit_exceeded", limit: "allowedRecipients" } });
      expect((await pay("4")).isError).toBe(false);
      const overDay = await pay("2.5");
      expect(overDay).toMatchObject({ isError: true, body: { code: "limit_exceeded", limit: "perDay" } });
      expect(overDay.body.message).toContain("in 24 hours");
      expect(await balance(payee)).toBe(units("4"));
      expect(await balance(stranger)).toBe(0n);
    } finally {
      await mcp.stop();
    }
  });

  test("the spend ledger survives a restart (as relay402 mcp): the total limit still counts what was paid before", async () => {
    const payer = await freshPayer(network);
    const payee = randomAddress();
    const dir = configDir({ total: "6" });
    const pay = { network, token: c.token.address, to: payee };
    const first = await startMcp(payer.key, dir);
    try {
      expect((await first.call("relay402_pay", { ...pay, amount: "4" })).isError).toBe(false);
    } finally {
      await first.stop();
    }
    const second = await startMcp(payer.key, dir, "cli");
    try {
      const refused = await second.call("relay402_pay", { ...pay, amount: "3" });
      expect(refused).toMatchObject({ isError: true, body: { code: "limit_exceeded", limit: "total" } });
      expect(refused.body.message).toContain("already spent 4");
      expect((await second.call("relay402_pay", { ...pay, amount: "2" })).isError).toBe(false);
      expect(await balance(payee)).toBe(units("6"));
    } finally {
      await second.stop();
    }
  });

  test("buys an x402 resource within the limits: the shop gets exactly the price, once per idempotency key", async () => {
    const payer = await freshPayer("base");
    const dir = configDir({ perPayment: "1.3" }, { allowedHosts: [new URL(itemUrl).host] });
    const mcp = await startMcp(payer.key, dir);
    try {
      const before = await tokenBalance("base", base.token.address, shopPayTo);
      const bought = await mcp.call("relay402_buy", { url: itemUrl, idempotencyKey: "item-1" });
      expect(bought.isError).toBe(false);
      expect(bought.body).toMatchObject({ status: 200, body: "the item", payment: { amountBaseUnits: `${price}` } });
      expect(bought.body.payment.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await tokenBalance("base", base.token.address, shopPayTo)).toBe(before + price);
      // The ledger counts what was signed and moved, not what the offer said.
      const ledger = readFileSync(join(dir, "spent.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(ledger.at(-1)).toMatchObject({ key: "x402:item-1", state: "paid", amount: `${price}` });
      const again = await mcp.call("relay402_buy", { url: itemUrl, idempotencyKey: "item-1" });
      expect(again.body.payment.repeated).toBe(true);
      const otherHost = await mcp.call("relay402_buy", { url: itemUrl.replace("127.0.0.1", "localhost") });
      expect(otherHost).toMatchObject({ isError: true, body: { limit: "allowedHosts" } });
      expect(await tokenBalance("base", base.token.address, shopPayTo)).toBe(before + price);
    } finally {
      await mcp.stop();
    }
    // Over the per-payment limit: refused before signing.
    const strict = await startMcp(payer.key, configDir({ perPayment: "1" }, { allowedHosts: [new URL(itemUrl).host] }));
    try {
      const refused = await strict.call("relay402_buy", { url: itemUrl });
      expect(refused).toMatchObject({ isError: true, body: { code: "limit_exceeded", limit: "perPayment" } });
      expect(await tokenBalance("base", base.token.address, shopPayTo)).toBe(price);
    } finally {
      await strict.stop();
    }
  });

  test("an RPC URL holding an API key never reaches the agent or the log, even when the RPC fails", async () => {
    const payer = await freshPayer(network);
    const dir = configDir({ perPayment: "5" });
    const file = join(dir, "mcp.json");
    const secret = "rpc-api-key-0123456789";
    const config = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...config, rpcUrls: { [network]: `http://127.0.0.1:1/${secret}` } }));
    const mcp = await startMcp(payer.key, dir);
    try {
      const balances = await mcp.call("relay402_balances");
      const paid = await mcp.call("relay402_pay", {
        network,
        token: c.token.address,
        to: randomAddress(),
        amount: "1",
      });
      expect(balances.isError).toBe(true);
      expect(paid).toMatchObject({ isError: true, body: { status: "refused" } });
      const seen = JSON.stringify([balances, paid]) + readFileSync(join(dir, "payments.log"), "utf8");
      expect(seen).not.toContain(secret);
      expect(seen).not.toContain(payer.key.slice(2));
    } finally {
      await mcp.stop();
    }
  });

  test("quotes and runs a swap to itself: the sell amount counts against the limits, a key swaps once", async () => {
    const t = swapTokensOf(network);
    const payer = await freshPayer(network);
    const mcp = await startMcp(payer.key, configDir({ perPayment: "50", total: "60" }));
    try {
      const order = { network, sellToken: t.m, buyToken: t.dai, sellAmount: "40" };
      const quote = await mcp.call("relay402_swap_quote", order);
      expect(quote.isError).toBe(false);
      expect(Number(quote.body.buy.amount)).toBeGreaterThan(0);
      const m = await tokenBalance(network, t.m, payer.address);
      const dai = await tokenBalance(network, t.dai, payer.address);
      const swapped = await mcp.call("relay402_swap", { ...order, idempotencyKey: "swap-1" });
      expect(swapped).toMatchObject({ isError: false, body: { status: "swapped", repeated: false } });
      expect(await tokenBalance(network, t.dai, payer.address)).toBe(dai + BigInt(swapped.body.boughtBaseUnits));
      expect(m - (await tokenBalance(network, t.m, payer.address))).toBe(units("40"));

      const again = await mcp.call("relay402_swap", { ...order, idempotencyKey: "swap-1" });
      expect(again.body).toMatchObject({ status: "swapped", repeated: true, transaction: swapped.body.transaction });
      const over = await mcp.call("relay402_swap", { ...order, sellAmount: "25" });
      expect(over).toMatchObject({ isError: true, body: { code: "limit_exceeded", limit: "total" } });
      expect(m - (await tokenBalance(network, t.m, payer.address))).toBe(units("40"));
    } finally {
      await mcp.stop();
    }
  });
});
