// Funded approves that no node would mine (issue #33 item 3): refused before anybody is funded, and a funded approve the
// node refuses afterwards becomes a terminal record counted against its payer, on both networks.
import { afterAll, describe, expect, test } from "bun:test";
import { type Address, type Hex, parseGwei, parseTransaction, serializeTransaction } from "viem";
import { chainOf, randomAddress, tokenBalance } from "../support/chain";
import { DASHBOARD_KEY } from "../support/dashboard";
import { type JsonRpcCall, jsonRpcProxy } from "../support/json-rpc-proxy";
import { trackServices } from "../support/service";
import {
  type Net,
  nativeBalance,
  permit2Payment,
  plainRequirements,
  plainToken,
  signApprove,
  sponsoredBody,
  tokenOnlyPayer,
} from "./funded-approve-support";

const services = trackServices();
const proxies: ReturnType<typeof jsonRpcProxy>[] = [];
afterAll(() => {
  services.stopAll();
  for (const proxy of proxies) proxy.stop();
});
const price = 10n ** 18n;
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** The raw transaction an eth_sendRawTransaction carries. */
const rawOf = (call: JsonRpcCall) => String(call.params?.[0] ?? "").toLowerCase();
const underpriced = { error: { code: -32000, message: "transaction underpriced" } };

/**
 * A service on `network` whose node is a proxy in front of the devnet's: `refuse(raw, calls)` answers a broadcast
 * with the node's refusal when it returns one (`calls`: how many broadcasts of that raw came before).
 */
function serviceBehindNode(network: Net, refuse: (raw: string, calls: number) => unknown) {
  const seen = new Map<string, number>();
  const proxy = jsonRpcProxy(chainOf(network).info.rpcUrl, {
    answer: (call) => {
      if (call.method !== "eth_sendRawTransaction") return undefined;
      const raw = rawOf(call);
      const calls = seen.get(raw) ?? 0;
      seen.set(raw, calls + 1);
      return refuse(raw, calls);
    },
  });
  proxies.push(proxy);
  const service = services.start({ dashboardApiKey: DASHBOARD_KEY }, (config) => {
    const settings = config.networks[network];
    if (!settings) throw new Error(`${network} not configured`);
    settings.rpcUrls = [proxy.url];
    settings.receiptTimeoutMs = 2_000;
  });
  return service;
}

const rowsOf = (service: ReturnType<typeof services.start>, payer: Address) =>
  service.db.$client
    .query<{ status: string; funding_wei: string }, [string]>(
      "SELECT status, funding_wei FROM funded_approvals WHERE payer = ?",
    )
    .all(payer.toLowerCase());

/** The high-s twin of a signed transaction: the same signer, the signature nodes refuse (EIP-2). */
function highS(raw: Hex): Hex {
  const tx = parseTransaction(raw);
  return serializeTransaction(tx as never, {
    r: tx.r as Hex,
    s: `0x${(N - BigInt(tx.s as Hex)).toString(16).padStart(64, "0")}`,
    yParity: tx.yParity === 0 ? 1 : 0,
  });
}

for (const network of ["bsc", "base"] as const) {
  describe(`funded approves no node would mine, on ${network}`, () => {
    const relay = services.start({}, (config) => {
      const settings = config.networks[network];
      if (settings) settings.receiptTimeoutMs = 2_000;
    });

    test("under its intrinsic gas, or with a high-s signature: refused at verify and settle, nobody funded", async () => {
      const cases: [string, (key: Hex) => Promise<Hex>][] = [
        // EIP-7623's floor for x402's approve of Permit2: 23,210 gas.
        ["erc20_approval_gas_limit_too_low", (key) => signApprove(key, network, { gas: 23_209n })],
        ["erc20_approval_tx_invalid_signature", async (key) => highS(await signApprove(key, network))],
      ];
      for (const [reason, sign] of cases) {
        const payer = await tokenOnlyPayer(network);
        const requirements = plainRequirements(network, price);
        const body = sponsoredBody(await permit2Payment(payer.key, requirements), requirements, await sign(payer.key));
        expect({ reason, verify: (await relay.post("/verify", body)).body }).toMatchObject({
          reason,
          verify: { isValid: false, invalidReason: reason },
        });
        expect({ reason, settle: (await relay.post("/settle", body)).body }).toMatchObject({
          reason,
          settle: { success: false, errorReason: reason },
        });
        expect(await nativeBalance(network, payer.address)).toBe(0n);
        expect(rowsOf(relay, payer.address)).toEqual([]);
      }
    });

    test("a node that finds the approve underpriced (its minimum tip): refused at settle before any funding", async () => {
      const payer = await tokenOnlyPayer(network);
      const requirements = plainRequirements(network, price);
      const raw = await signApprove(payer.key, network);
      const service = serviceBehindNode(network, (sent) => (sent === raw.toLowerCase() ? underpriced : undefined));
      const body = sponsoredBody(await permit2Payment(payer.key, requirements), requirements, raw);
      expect((await service.post("/settle", body)).body).toMatchObject({
        success: false,
        errorReason: "erc20_approval_broadcast_failed",
      });
      expect(await nativeBalance(network, payer.address)).toBe(0n);
      expect(rowsOf(service, payer.address)).toEqual([]);
    });

    test("a payer with a transaction waiting in the pool (pending nonce ahead of its mined one): refused, nobody funded", async () => {
      const c = chainOf(network);
      const payer = await tokenOnlyPayer(network);
      const requirements = plainRequirements(network, price);
      const payment = await permit2Payment(payer.key, requirements);
      await c.test.setBalance({ address: payer.address, value: 10n ** 15n });
      await c.test.setAutomine(false);
      let waiting: Hex | undefined;
      try {
        waiting = await c.walletFor(payer.key).sendTransaction({
          to: randomAddress(),
          value: 0n,
          nonce: 0,
          gas: 21_000n,
          maxFeePerGas: parseGwei("2"),
          maxPriorityFeePerGas: parseGwei("1"),
        });
        await c.test.setBalance({ address: payer.address, value: 0n });
        const raw = await signApprove(payer.key, network, { nonce: 1 });
        const answer = await relay.post("/settle", sponsoredBody(payment, requirements, raw));
        expect(answer.body).toMatchObject({ success: false, errorReason: "erc20_approval_tx_wrong_nonce" });
        expect(await c.public.getBalance({ address: payer.address, blockTag: "pending" })).toBe(0n);
        expect(rowsOf(relay, payer.address)).toEqual([]);
      } finally {
        if (waiting) await c.test.dropTransaction({ hash: waiting });
        await c.test.setAutomine(true);
      }
    });

    test("a funded approve the node then refuses: terminal `refused`, counted against the payer, who keeps the funding and is not funded again", async () => {
      const payer = await tokenOnlyPayer(network);
      const requirements = plainRequirements(network, price);
      const raw = await signApprove(payer.key, network);
      // The node's check before the funding is the real one ("insufficient funds"); after it, the node refuses.
      const service = serviceBehindNode(network, (sent, calls) =>
        sent === raw.toLowerCase() && calls > 0 ? underpriced : undefined,
      );
      const body = sponsoredBody(await permit2Payment(payer.key, requirements), requirements, raw);
      expect((await service.post("/settle", body)).body).toMatchObject({
        success: false,
        errorReason: "erc20_approval_broadcast_failed",
      });
      const { gas, maxFeePerGas } = parseTransaction(raw);
      expect(await nativeBalance(network, payer.address)).toBe((gas as bigint) * (maxFeePerGas as bigint));
      expect(rowsOf(service, payer.address)).toEqual([
        { status: "refused", funding_wei: ((gas as bigint) * (maxFeePerGas as bigint)).toString() },
      ]);
      const counted = service.db.$client
        .query<{ reverts: number }, [string]>("SELECT reverts FROM deny_counters WHERE kind = 'payer' AND address = ?")
        .get(payer.address.toLowerCase());
      expect(counted?.reverts).toBe(1);
      expect(await service.services.stores.fundedApprovals.unfinished()).toEqual([]);
      const summary = await service.get(`/dashboard/api/summary?range=hour&network=${network}`, {
        "x-dashboard-api-key": DASHBOARD_KEY,
      });
      expect(summary.body.onboarding).toMatchObject([
        {
          network,
          diverted: { count: 0 },
          lost: { count: 1, wei: ((gas as bigint) * (maxFeePerGas as bigint)).toString() },
        },
      ]);

      // The same payload again: the terminal answer, nothing sent; the payer's next approve is not funded.
      expect((await service.post("/settle", body)).body).toMatchObject({
        success: false,
        errorReason: "erc20_approval_broadcast_failed",
      });
      const next = sponsoredBody(
        await permit2Payment(payer.key, requirements),
        requirements,
        await signApprove(payer.key, network, { nonce: 0, gas: 80_000n }),
      );
      expect((await service.post("/settle", next)).body).toMatchObject({ success: false });
      expect(await nativeBalance(network, payer.address)).toBe((gas as bigint) * (maxFeePerGas as bigint));
      expect(await tokenBalance(network, plainToken(), requirements.payTo as Address)).toBe(0n);
    });

    test("a node behind the one that mined the funding answers the funded approve 'insufficient funds' while the payer holds it: not refused, the next settle pays", async () => {
      const payer = await tokenOnlyPayer(network);
      const requirements = plainRequirements(network, price);
      const raw = await signApprove(payer.key, network);
      const lagging = { error: { code: -32000, message: "insufficient funds for gas * price + value" } };
      // The check before the funding is the real one; the first broadcast after it meets the lagging node.
      const service = serviceBehindNode(network, (sent, calls) =>
        sent === raw.toLowerCase() && calls === 1 ? lagging : undefined,
      );
      const body = sponsoredBody(await permit2Payment(payer.key, requirements), requirements, raw);
      expect((await service.post("/settle", body)).body).toMatchObject({
        success: false,
        errorReason: "settlement_pending",
      });
      expect(rowsOf(service, payer.address).map((row) => row.status)).toEqual(["approve_sent"]);
      expect((await service.post("/settle", body)).body).toMatchObject({ success: true });
      expect(await tokenBalance(network, plainToken(), requirements.payTo as Address)).toBe(price);
      expect(rowsOf(service, payer.address).map((row) => row.status)).toEqual(["used"]);
    });
  });
}
