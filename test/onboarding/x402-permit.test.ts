import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRelay402Client } from "@relay402/client";
import { eip2612Abi } from "@relay402/client/wire/eip2612-permit";
import type { PaymentPayload } from "@x402/core/types";
import { decodeFunctionData, getAddress, type Hex, maxUint256, type PublicClient, parseAbi } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { PaymentContext } from "../../packages/client/src/mcp/agent-payment";
import { chainFactsFrom } from "../../packages/client/src/mcp/chain-facts";
import { SpendLedger } from "../../packages/client/src/mcp/spend-ledger";
import { buyWithinLimits } from "../../packages/client/src/mcp/x402-purchase";
import { PERMIT2, X402_EXACT_PERMIT2_PROXY, x402ExactPermit2ProxyAbi } from "../../src/x402/permit2";
import { chainOf, NETWORK_NAMES, tokenBalance } from "../support/chain";
import { x402Shop } from "../support/x402-shop";
import { x402ExpressShop } from "../support/x402-shop-express";
import { listeningService, MERCHANT_API_KEY } from "../x402/support";
import { tokenOnlyPayer } from "./funded-approve-support";
import {
  EXECUTORS,
  executorsNative,
  fetchFor,
  gasCost,
  permitRequirements,
  permitToken,
  SPONSORED_EXTENSIONS,
  signPermit,
  sponsoredPayload,
  sponsoringOf,
  withSponsoring,
} from "./permit-support";

// x402's eip2612GasSponsoring: a payer holding only a token with EIP-2612 permit (and no native coin at all) pays an
// x402 merchant with relay402 as facilitator; the permit to Permit2 goes on-chain inside the settlement, paid by
// relay402's executors. The chain's balances judge.

const relay = listeningService({ merchantApiKeys: [MERCHANT_API_KEY] });
const facilitator = relay.facilitator(MERCHANT_API_KEY);
const shops: { stop(): void }[] = [];
afterAll(() => {
  for (const shop of shops) shop.stop();
  relay.stop();
});

const PRICE = 250_000n; // 0.25 of the 6-decimal permit token
const allowanceAbi = parseAbi(["function allowance(address owner, address spender) view returns (uint256)"]);
const allowanceToPermit2 = (network: "bsc" | "base", owner: Hex) =>
  chainOf(network).public.readContract({
    address: permitToken(network).address,
    abi: allowanceAbi,
    functionName: "allowance",
    args: [owner, PERMIT2],
  });
const permitNonce = (network: "bsc" | "base", owner: Hex) =>
  chainOf(network).public.readContract({
    address: permitToken(network).address,
    abi: eip2612Abi,
    functionName: "nonces",
    args: [owner],
  });

/** The proxy function a transaction called. */
async function proxyCall(network: "bsc" | "base", hash: Hex) {
  const transaction = await chainOf(network).public.getTransaction({ hash });
  expect(transaction.to?.toLowerCase()).toBe(X402_EXACT_PERMIT2_PROXY.toLowerCase());
  return {
    from: getAddress(transaction.from),
    name: decodeFunctionData({ abi: x402ExactPermit2ProxyAbi, data: transaction.input }).functionName,
  };
}

/** A shop (@x402/hono, or @x402/express) selling for PRICE of `network`'s permit token, offering the sponsoring. */
async function permitShop(network: (typeof NETWORK_NAMES)[number], framework: "hono" | "express" = "hono") {
  const token = permitToken(network).address;
  const requirements = permitRequirements(network, PRICE);
  const options = {
    facilitator,
    network: requirements.network as `eip155:${number}`,
    payTo: requirements.payTo as Hex,
    asset: token,
    amount: PRICE,
    extra: requirements.extra,
    extensions: SPONSORED_EXTENSIONS,
  };
  const shop = framework === "express" ? await x402ExpressShop(options) : x402Shop(options);
  shops.push(shop);
  return { token, requirements, shop };
}

describe("x402 eip2612GasSponsoring: a payer with no native coin pays with the token's permit", () => {
  test("/supported lists the extension", async () => {
    expect((await facilitator.getSupported()).extensions).toContain("eip2612GasSponsoring");
  });

  for (const network of NETWORK_NAMES) {
    test(`${network}: @x402/fetch buys from a shop on @x402/express; exact balances, our executors pay the one transaction`, async () => {
      const { token, requirements, shop } = await permitShop(network, "express");
      const payer = await tokenOnlyPayer(network, PRICE * 3n, token);
      const c = chainOf(network);
      expect(await c.public.getBalance({ address: payer.address })).toBe(0n);
      expect(await allowanceToPermit2(network, payer.address)).toBe(0n);
      const executorsBefore = await executorsNative(network);

      const response = await fetchFor(payer.key)(shop.itemUrl);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe("the item");
      const settlement = JSON.parse(
        Buffer.from(response.headers.get("payment-response") ?? "", "base64").toString(),
      ) as { transaction: Hex; success: boolean };
      expect(settlement.success).toBe(true);

      expect(await tokenBalance(network, token, requirements.payTo as Hex)).toBe(PRICE);
      expect(await tokenBalance(network, token, payer.address)).toBe(PRICE * 2n);
      expect(await c.public.getBalance({ address: payer.address })).toBe(0n);
      // The permit went on-chain with the payment: its nonce used, the allowance it granted spent by the payment.
      expect(await permitNonce(network, payer.address)).toBe(1n);
      expect(await allowanceToPermit2(network, payer.address)).toBe(0n);
      const call = await proxyCall(network, settlement.transaction);
      expect(call.name).toBe("settleWithPermit");
      const { gasUsed } = await c.public.getTransactionReceipt({ hash: settlement.transaction });
      console.log(`${network}: x402 settleWithPermit (permit and payment) gasUsed ${gasUsed}`);
      expect(EXECUTORS).toContain(call.from);
      expect(executorsBefore - (await executorsNative(network))).toBe(await gasCost(network, settlement.transaction));
    });
  }
});

describe("x402 eip2612GasSponsoring refusals and races (bsc)", () => {
  const network = "bsc" as const;
  const token = () => permitToken(network).address;

  /** A payer with no native coin, a signed sponsored payment of PRICE, and the requirements it pays. */
  async function sponsored() {
    const payer = await tokenOnlyPayer(network, PRICE * 4n, token());
    const requirements = permitRequirements(network, PRICE);
    const payload = await sponsoredPayload(payer.key, requirements);
    expect(sponsoringOf(payload).spender).toBe(PERMIT2);
    return { payer, requirements, payload };
  }

  /** Verify and settle both refuse with `reason`; nothing moved and no gas of ours was spent. */
  async function refusedEverywhere(
    payload: PaymentPayload,
    requirements: ReturnType<typeof permitRequirements>,
    reason: string,
  ) {
    const executorsBefore = await executorsNative(network);
    const payTo = requirements.payTo as Hex;
    expect(await facilitator.verify(payload, requirements)).toMatchObject({ isValid: false, invalidReason: reason });
    const settled = await facilitator
      .settle(payload, requirements)
      .catch((error: { response?: unknown }) => error.response ?? error);
    expect(settled).toMatchObject({ success: false, errorReason: reason });
    expect(await tokenBalance(network, token(), payTo)).toBe(0n);
    expect(await executorsNative(network)).toBe(executorsBefore);
  }

  test("a permit for another nonce, an expired deadline, another spender, a smaller amount, another signer: refused, no gas spent", async () => {
    const { payer, requirements, payload } = await sponsored();
    const info = sponsoringOf(payload);
    const permit = (change: Parameters<typeof signPermit>[2] extends infer P ? Partial<P> : never) =>
      signPermit(network, payer.key, { token: token(), spender: PERMIT2, value: PRICE, ...change });

    const wrongNonce = await permit({ nonce: 5n });
    await refusedEverywhere(
      withSponsoring(payload, { nonce: "5", signature: wrongNonce.signature }),
      requirements,
      "permit2_allowance_required",
    );
    const soon = BigInt(Math.floor(Date.now() / 1000) + 2);
    const expiring = await permit({ deadline: soon });
    await refusedEverywhere(
      withSponsoring(payload, { deadline: soon.toString(), signature: expiring.signature }),
      requirements,
      "eip2612_deadline_expired",
    );
    const toProxy = await permit({ spender: X402_EXACT_PERMIT2_PROXY });
    await refusedEverywhere(
      withSponsoring(payload, { spender: X402_EXACT_PERMIT2_PROXY, signature: toProxy.signature }),
      requirements,
      "eip2612_spender_not_permit2",
    );
    const smaller = await permit({ value: PRICE - 1n });
    await refusedEverywhere(
      withSponsoring(payload, { amount: (PRICE - 1n).toString(), signature: smaller.signature }),
      requirements,
      "permit2_2612_amount_mismatch",
    );
    // MaxUint256 (what some clients sign): x402's proxy reverts on any amount but the Permit2 amount.
    const unlimited = await permit({ value: maxUint256 });
    await refusedEverywhere(
      withSponsoring(payload, { amount: maxUint256.toString(), signature: unlimited.signature }),
      requirements,
      "permit2_2612_amount_mismatch",
    );
    const stranger = await tokenOnlyPayer(network, 0n, token());
    const forged = await signPermit(network, stranger.key, {
      token: token(),
      spender: PERMIT2,
      value: PRICE,
      nonce: 0n,
    });
    await refusedEverywhere(
      withSponsoring(payload, { signature: forged.signature }),
      requirements,
      "permit2_allowance_required",
    );
    await refusedEverywhere(withSponsoring(payload, { from: stranger.address }), requirements, "eip2612_from_mismatch");
    await refusedEverywhere(
      withSponsoring(payload, { signature: "0x1234" }),
      requirements,
      "invalid_eip2612_extension_format",
    );

    // The untouched payload still pays, exactly once.
    expect(info.nonce).toBe("0");
    expect(await facilitator.settle(payload, requirements)).toMatchObject({ success: true });
    expect(await tokenBalance(network, token(), requirements.payTo as Hex)).toBe(PRICE);
  });

  test("a replayed payload, and its permit replayed with a new payment: settled once, then refused", async () => {
    const { payer, requirements, payload } = await sponsored();
    expect(await facilitator.settle(payload, requirements)).toMatchObject({ success: true });
    const executorsBefore = await executorsNative(network);
    expect(await facilitator.settle(payload, requirements)).toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_nonce_already_used",
    });
    // A second payment to another merchant carrying the first one's (now used) permit: the allowance is spent.
    const second = permitRequirements(network, PRICE);
    const fresh = await sponsoredPayload(payer.key, second);
    const replayed = { ...fresh, extensions: payload.extensions };
    expect(await facilitator.verify(replayed, second)).toMatchObject({
      isValid: false,
      invalidReason: "permit2_allowance_required",
    });
    expect(await facilitator.settle(replayed, second)).toMatchObject({ success: false });
    expect(await executorsNative(network)).toBe(executorsBefore);
    expect(await tokenBalance(network, token(), payer.address)).toBe(PRICE * 3n);
    expect(await tokenBalance(network, token(), second.payTo as Hex)).toBe(0n);
  });

  test("the permit submitted first by a stranger: the payment settles once, without the permit, at a plain settle's gas", async () => {
    const { payer, requirements, payload } = await sponsored();
    const info = sponsoringOf(payload);
    const c = chainOf(network);
    // The stranger pays the gas of the permit; the payer's allowance to Permit2 is now there.
    const strangerKey = generatePrivateKey();
    await c.test.setBalance({ address: privateKeyToAccount(strangerKey).address, value: 10n ** 18n });
    const signature = info.signature as Hex;
    const hash = await c.walletFor(strangerKey).writeContract({
      address: token(),
      abi: eip2612Abi,
      functionName: "permit",
      args: [
        payer.address,
        PERMIT2,
        BigInt(info.amount as string),
        BigInt(info.deadline as string),
        Number.parseInt(signature.slice(130, 132), 16),
        `0x${signature.slice(2, 66)}`,
        `0x${signature.slice(66, 130)}`,
      ],
    });
    expect((await c.public.waitForTransactionReceipt({ hash })).status).toBe("success");

    expect(await facilitator.verify(payload, requirements)).toMatchObject({ isValid: true });
    const executorsBefore = await executorsNative(network);
    const settled = await facilitator.settle(payload, requirements);
    expect(settled).toMatchObject({ success: true });
    const call = await proxyCall(network, settled.transaction as Hex);
    expect(call.name).toBe("settle");
    const { gasUsed } = await c.public.getTransactionReceipt({ hash: settled.transaction as Hex });
    console.log(`bsc: x402 settle after a foreign permit gasUsed ${gasUsed}`);
    expect(executorsBefore - (await executorsNative(network))).toBe(await gasCost(network, settled.transaction as Hex));
    expect(await tokenBalance(network, token(), requirements.payTo as Hex)).toBe(PRICE);
    expect(await tokenBalance(network, token(), payer.address)).toBe(PRICE * 3n);
  });

  test("ten concurrent settles of one sponsored payment: one success, one transaction", async () => {
    const { payer, requirements, payload } = await sponsored();
    const executorsBefore = await executorsNative(network);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => facilitator.settle(payload, requirements).catch((e) => e)),
    );
    const successes = answers.filter((answer) => answer?.success === true);
    expect(successes.length).toBe(1);
    const transaction = successes[0].transaction as Hex;
    expect(executorsBefore - (await executorsNative(network))).toBe(await gasCost(network, transaction));
    expect(await tokenBalance(network, token(), requirements.payTo as Hex)).toBe(PRICE);
    expect(await tokenBalance(network, token(), payer.address)).toBe(PRICE * 3n);
  });
});

describe("an MCP agent's key holding only the permit token buys an x402 resource", () => {
  test("buyWithinLimits signs the sponsoring permit through its RPCs; the shop is paid once, our executors pay the gas", async () => {
    const network = "bsc" as const;
    const c = chainOf(network);
    const { token, requirements, shop } = await permitShop(network);
    const payer = await tokenOnlyPayer(network, PRICE * 2n, token);
    const dataDir = mkdtempSync(join(tmpdir(), "relay402-agent-"));
    const context: PaymentContext = {
      settings: {
        url: relay.url,
        account: privateKeyToAccount(payer.key),
        rpcUrls: { [network]: c.info.rpcUrl },
        limits: [{ network, token, perPayment: "1" }],
        allowedHosts: [new URL(shop.itemUrl).host],
        dataDir,
      },
      relay402: createRelay402Client({ url: relay.url }),
      ledger: new SpendLedger(join(dataDir, "spent.jsonl")),
      chain: chainFactsFrom({ [network]: c.info.rpcUrl }),
      clientsFor: async () => ({ signer: c.walletFor(payer.key), publicClient: c.public as PublicClient }),
      logFile: join(dataDir, "payments.log"),
    };
    const executorsBefore = await executorsNative(network);
    const bought = await buyWithinLimits(context, { url: shop.itemUrl, method: "GET", idempotencyKey: "zero-gas-buy" });
    expect(bought).toMatchObject({ status: 200, body: "the item", payment: { repeated: false } });
    const transaction = (bought as { payment: { transaction: Hex } }).payment.transaction;
    expect((await proxyCall(network, transaction)).name).toBe("settleWithPermit");
    expect(await tokenBalance(network, token, requirements.payTo as Hex)).toBe(PRICE);
    expect(await tokenBalance(network, token, payer.address)).toBe(PRICE);
    expect(await c.public.getBalance({ address: payer.address })).toBe(0n);
    expect(executorsBefore - (await executorsNative(network))).toBe(await gasCost(network, transaction));
  });
});
