// A front-runner who moves the pool between our simulation and the block makes a victim's swaps revert on-chain.
// Those reverts are the market's: they refuse the victim's next swaps for a while (denySwapsAfterReverts,
// denySwapsWindowSeconds), never its payments (EOA, x402). Most public BSC and Base endpoints do not trace mined
// transactions, and the replay before the block misses a front-run in the same block: such a revert's cause is
// unread, and it too counts only against swaps. The service here runs behind nodes that refuse debug_trace*.
// The chain's balances judge, not our records.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { erc20Abi } from "@relay402/client/wire/abis";
import { relayerSwapAbi } from "@relay402/client/wire/swap/abis";
import { x402Client } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { type Address, createPublicClient, type Hex, http, maxUint256 } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { freePort } from "../../scripts/devnet/ports";
import { configFromManifest } from "../../scripts/devnet/service-config";
import { tracesTransactions } from "../../src/chain/trace-probe";
import { runStartChecks, UNTRACED_NOTE } from "../../src/chain/wiring-check";
import { formatChecks } from "../../src/cli/check";
import type { Config } from "../../src/config/schema";
import { openDatabase } from "../../src/db/open";
import { createSqliteDenyCounters } from "../../src/deny/sqlite-deny-counters";
import { startServer } from "../../src/server";
import { denyPolicyOf } from "../../src/services";
import { minedRevertData, swapRevertCause } from "../../src/swap/revert-cause";
import { parseSwapAuthorization } from "../../src/swap/swap-authorization";
import { signedPayment } from "../support/authorization";
import {
  chainOf,
  freshPayer,
  NETWORK_NAMES,
  pendingTransactionTo,
  randomAddress,
  tokenBalance,
} from "../support/chain";
import { getTestDevnet } from "../support/devnet";
import { swapTokensOf, v3Whale } from "../support/dex";
import { nodeWithoutTracing } from "../support/json-rpc-proxy";
import { requestsTo } from "../support/service-of";
import { approvePermit2, baseRequirements, bscRequirements } from "../x402/support";

/** A node in front of the same anvil that serves everything but tracing, as most public endpoints do. */
const untracedNode = (network: (typeof NETWORK_NAMES)[number]) => nodeWithoutTracing(chainOf(network).info.rpcUrl);
const nodes = Object.fromEntries(NETWORK_NAMES.map((network) => [network, untracedNode(network)]));

/** The service as `relay402 start` runs it (its start checks and log included), its RPC URLs those untraced nodes. */
let server: Awaited<ReturnType<typeof startServer>> | undefined;
let config: Config;
const startLog: Record<string, unknown>[] = [];
const service = {
  post: (path: string, body: unknown) => requestsTo(server!.app)("POST", path, body),
  get: (path: string) => requestsTo(server!.app)("GET", path),
};
beforeAll(async () => {
  const manifest = getTestDevnet().devnet.manifest;
  config = configFromManifest(
    { ...manifest, service: `http://127.0.0.1:${await freePort()}` },
    {
      databasePath: join(mkdtempSync(join(tmpdir(), "relay402-sandwich-")), "relay402.sqlite"),
      rateLimitPerMinute: 1_000_000,
      logRequests: false,
    },
  );
  for (const network of NETWORK_NAMES)
    (config.networks[network] as { rpcUrls: string[] }).rpcUrls = [nodes[network]!.url];
  server = await startServer(config, { logSink: (line) => startLog.push(JSON.parse(line)) });
});
afterAll(async () => {
  await server?.stop();
  for (const node of Object.values(nodes)) node.stop();
});

/** The same attack and the same verdicts on each network (its DEX, its token, its x402 transfer method). */
function sandwichSuite(network: "bsc" | "base") {
  const { c, m, w, unit } = swapTokensOf(network);

  const mined = async (hash: Hex) => {
    const receipt = await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    expect(receipt.status).toBe("success");
  };

  /** A trader with M to move the V3 M/W pool (fee tier `fee`) and put it back. */
  async function sandwicher(fee: number) {
    const whale = await v3Whale(network, fee);
    return {
      // Outbids the executor's transaction into the same block.
      frontRun: () => whale.buy(20_000n * unit, 1_000n * 10n ** 9n),
      backRun: () => whale.restore(),
    };
  }

  type Payer = Awaited<ReturnType<typeof freshPayer>>;

  /** A quote in mode eoa for M -> W, signed as it comes, and its /swap/verify|settle body. */
  async function signedSwap(payer: Payer, sellAmount: bigint, recipient: Address) {
    const response = await service.post("/swap/quote", {
      network,
      sellToken: m,
      buyToken: w,
      sellAmount: sellAmount.toString(),
      mode: "eoa",
      from: payer.address,
      slippageBps: 10,
      recipient,
    });
    expect(response.status).toBe(200);
    const quote = response.body;
    const { domain, types, primaryType, message } = quote.typedData;
    const signature = await privateKeyToAccount(payer.key).signTypedData({ domain, types, primaryType, message });
    return {
      quote,
      body: {
        swapPayload: { authorization: message, signature, path: quote.path },
        swapRequirements: { network, relayerContract: quote.relayerContract },
      },
    };
  }

  /**
   * Settles `body` with blocks stopped: the service simulates and sends, and the front-run outbids its transaction
   * while it waits in the pool; both land in the next block, the front-run first.
   */
  async function settleSandwiched(body: unknown, attacker: Awaited<ReturnType<typeof sandwicher>>) {
    await c.test.setAutomine(false);
    let settling: Promise<{ status: number; body: any }> | undefined;
    try {
      settling = service.post("/swap/settle", body);
      const deadline = Date.now() + 15_000;
      while (!(await pendingTransactionTo(network, c.info.relayer))) {
        if (Date.now() > deadline) throw new Error("the service sent nothing");
        await Bun.sleep(25);
      }
      await attacker.frontRun();
      await c.test.mine({ blocks: 1 });
    } finally {
      await c.test.setAutomine(true);
    }
    try {
      return await settling;
    } finally {
      await attacker.backRun();
    }
  }

  /** The victims' reverted settlements of the first test, read again by the second. */
  const sandwiched: { transactionHash: Hex; blockNumber: bigint }[] = [];

  describe(`swaps reverted by a front-runner (${network})`, () => {
    test("the start log and /health say that this network's node does not trace, so revert causes go unread", async () => {
      expect(startLog).toContainEqual(
        expect.objectContaining({ level: "warn", event: "swap_revert_causes", network, revertCauses: "untraced" }),
      );
      const health = await service.get("/health");
      expect(health.status).toBe(200);
      expect(health.body.networks[network].swap).toEqual({ status: "ok", revertCauses: "untraced" });
      // As `relay402 check` prints it.
      const printed = formatChecks((await runStartChecks(config)).checks).split("\n");
      expect(printed).toContain(
        `note    networks.${network}.rpcUrls trace mined transactions (debug_traceTransaction), to read why a swap reverted: ${UNTRACED_NOTE}`,
      );
    });

    test("three swaps sandwiched in their own block revert on-chain, with no trace to read why; the victim's EOA and x402 payments still settle; its next swap is refused for denySwapsWindowSeconds", async () => {
      // The documented defaults: three market reverts refuse swaps for an hour.
      expect([config.denySwapsAfterReverts, config.denySwapsWindowSeconds]).toEqual([3, 3_600]);
      // The all-flows threshold is also three: before, these three reverts refused the victim's payments for a day.
      expect(config.denyAfterReverts).toBe(3);
      const tracesRefused = nodes[network]!.counts.get("debug_traceTransaction") ?? 0;
      const victim = await freshPayer(network, { tokens: 1_000n * unit });
      await mined(
        await c
          .walletFor(victim.key)
          .writeContract({ address: m, abi: erc20Abi, functionName: "approve", args: [c.info.relayer, maxUint256] }),
      );
      const sellAmount = 50n * unit;

      for (let i = 0; i < config.denySwapsAfterReverts; i++) {
        const recipient = randomAddress();
        const { quote, body } = await signedSwap(victim, sellAmount, recipient);
        expect(quote.route).toMatchObject([{ kind: "v3", tokenIn: m, tokenOut: w }]);
        const attacker = await sandwicher(quote.route[0].fee);
        const before = await tokenBalance(network, m, victim.address);
        const settled = await settleSandwiched(body, attacker);
        expect([settled.status, settled.body.code]).toEqual([500, "payment_settlement_error"]);
        // Mined and reverted: the victim kept its M, the recipient got nothing (the executor paid the gas).
        const receipt = await c.public.getTransactionReceipt({ hash: settled.body.details.transaction as Hex });
        expect(receipt.status).toBe("reverted");
        sandwiched.push(receipt);
        expect(await tokenBalance(network, m, victim.address)).toBe(before);
        expect(await tokenBalance(network, w, recipient)).toBe(0n);
      }
      // The service asked its node for each revert's trace, and was refused each time.
      expect((nodes[network]!.counts.get("debug_traceTransaction") ?? 0) - tracesRefused).toBe(
        config.denySwapsAfterReverts,
      );

      // An EOA payment: verified and settled, the tokens moved on-chain.
      const to = randomAddress();
      const payment = await signedPayment({ network, key: victim.key, to, value: 3n * unit });
      expect((await service.post("/verify", payment)).body).toEqual({ isValid: true, payer: victim.address });
      const paid = await service.post("/settle", payment);
      expect(paid.status).toBe(200);
      expect(await tokenBalance(network, m, to)).toBe(3n * unit);

      // An x402 payment by the same victim (exact: Permit2 on bsc, whose token has no EIP-3009; EIP-3009 on base):
      // settled, the merchant paid on-chain.
      if (network === "bsc") await approvePermit2(victim.key);
      const buyer = registerExactEvmScheme(new x402Client(), { signer: privateKeyToAccount(victim.key) });
      buyer.setSpendControls({ allowedAssets: true });
      const requirements = network === "bsc" ? bscRequirements(2n * unit) : baseRequirements(2n * unit);
      const resource = { url: "http://shop.test/item", description: "an item", mimeType: "text/plain" };
      const x402Payment = await buyer.createPaymentPayload({ x402Version: 2, resource, accepts: [requirements] });
      const x402 = { x402Version: 2, paymentPayload: x402Payment, paymentRequirements: requirements };
      expect((await service.post("/verify", x402)).body).toMatchObject({ isValid: true });
      expect((await service.post("/settle", x402)).body).toMatchObject({ success: true });
      expect(await tokenBalance(network, m, requirements.payTo as Address)).toBe(2n * unit);

      // The next swap, with the price back where it was: refused at verify and settle, nothing sent.
      const recipient = randomAddress();
      const { body } = await signedSwap(victim, sellAmount, recipient);
      const held = await tokenBalance(network, m, victim.address);
      const verified = await service.post("/swap/verify", body);
      expect(verified.status).toBe(200);
      expect(verified.body).toMatchObject({
        isValid: false,
        invalidReason: "payment_verification_error",
        invalidMessage: "payer refused: too many of its settlements reverted on-chain",
      });
      const refused = await service.post("/swap/settle", body);
      expect([refused.status, refused.body.code]).toEqual([400, "payment_verification_error"]);
      expect(await tokenBalance(network, m, victim.address)).toBe(held);
      expect(await tokenBalance(network, w, recipient)).toBe(0n);

      // The swap refusal lasts denySwapsWindowSeconds from the last revert (the service's own counters on a later clock).
      const now = Math.floor(Date.now() / 1000);
      const at = (clock: number) => {
        const db = openDatabase(config.databasePath);
        const counters = createSqliteDenyCounters(db, { ...denyPolicyOf(config), now: () => clock });
        return {
          swapsRefused: () => counters.isDenied(network, "swap_payer", victim.address),
          everyFlowRefused: () => counters.isDenied(network, "payer", victim.address),
          close: () => db.$client.close(),
        };
      };
      const stillInWindow = at(now + config.denySwapsWindowSeconds - 30);
      expect(await stillInWindow.swapsRefused()).toBe(true);
      expect(await stillInWindow.everyFlowRefused()).toBe(false);
      stillInWindow.close();
      const afterWindow = at(now + config.denySwapsWindowSeconds + 30);
      expect(await afterWindow.swapsRefused()).toBe(false);
      afterWindow.close();
    });

    test("the cause is read from the mined transaction: its trace, or on a node without tracing the call replayed before its block (a same-block front-run then leaves it unread)", async () => {
      expect(sandwiched.length).toBe(config.denySwapsAfterReverts);
      const untraced = untracedNode(network);
      try {
        const withoutTrace = createPublicClient({ chain: c.chain, transport: http(untraced.url) });
        // What the start asks each node.
        expect(await tracesTransactions(c.public)).toBe(true);
        expect(await tracesTransactions(withoutTrace)).toBe(false);
        for (const mined of sandwiched) {
          expect(swapRevertCause(await minedRevertData(c.public, mined))).toBe("market");
          // The front-run is in the same block, before it: the state before the block pays the minimum.
          expect(swapRevertCause(await minedRevertData(withoutTrace, mined))).toBe("unread");
        }

        // A front-run mined a block earlier than the swap: the replay on the state before the swap's block reverts
        // with the relayer's InsufficientOutput, and so does the trace.
        const payer = await freshPayer(network, { tokens: 100n * unit });
        await mined(
          await c
            .walletFor(payer.key)
            .writeContract({ address: m, abi: erc20Abi, functionName: "approve", args: [c.info.relayer, maxUint256] }),
        );
        const { quote, body } = await signedSwap(payer, 50n * unit, randomAddress());
        const { authorization, signature } = parseSwapAuthorization(body.swapPayload);
        const attacker = await sandwicher(quote.route[0].fee);
        let hash: Hex;
        // The back-run puts the pool back whatever fails here: the files after this one quote the seeded prices.
        try {
          await mined(await attacker.frontRun());
          // Submitted by the payer itself (anyone may), with a gas limit so that no estimate refuses it.
          hash = await c.walletFor(payer.key).writeContract({
            address: c.info.relayer,
            abi: relayerSwapAbi,
            functionName: "swapWithAuthorization",
            args: [
              authorization,
              signature,
              // The signed route: only the market, not another route, can make it revert.
              { router: quote.router, path: quote.path },
            ],
            gas: 700_000n,
          });
        } finally {
          await attacker.backRun();
        }
        const receipt = await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
        expect(receipt.status).toBe("reverted");
        expect(await tokenBalance(network, m, payer.address)).toBe(100n * unit);
        expect(swapRevertCause(await minedRevertData(c.public, receipt))).toBe("market");
        expect(swapRevertCause(await minedRevertData(withoutTrace, receipt))).toBe("market");
        expect(untraced.counts.get("debug_traceTransaction")).toBeGreaterThan(0);
      } finally {
        untraced.stop();
      }
    });
  });
}

for (const network of NETWORK_NAMES) sandwichSuite(network);
