import { afterAll, describe, expect, test } from "bun:test";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { eq } from "drizzle-orm";
import { type Address, encodeFunctionData, type Hex, maxUint256, parseAbi } from "viem";
import { MULTICALL3 } from "../../src/chain/addresses";
import { x402Settlements } from "../../src/db/schema";
import { nonceKey, PERMIT2, X402_EXACT_PERMIT2_PROXY, x402ExactPermit2ProxyAbi } from "../../src/x402/permit2";
import { chainOf, freshPayer, randomAddress, tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";
import {
  bscRequirements,
  listeningService,
  permit2Buyer,
  permitOf,
  signPermit,
  submitToProxy,
  tamperedPermit,
} from "./support";

const service = listeningService({}, (config) => {
  if (config.networks.bsc) config.networks.bsc.receiptTimeoutMs = 500;
});
const others = trackServices();
afterAll(() => {
  service.stop();
  others.stopAll();
});

const c = chainOf("bsc");
const price = 2n * 10n ** 18n; // 2 of the 18-decimal token
const balanceOf = (holder: string) => tokenBalance("bsc", c.token.address, holder as `0x${string}`);
const facilitator = service.facilitator();
const settle = (payment: PaymentPayload, requirements: PaymentRequirements) =>
  facilitator.settle(payment, requirements);
const recordOf = (nonce: bigint) =>
  service.db
    .select()
    .from(x402Settlements)
    .where(eq(x402Settlements.nonce, nonceKey(nonce)))
    .get();

async function whileNotMining<T>(task: () => Promise<T>): Promise<T> {
  await c.test.setAutomine(false);
  try {
    return await task();
  } finally {
    await c.test.setAutomine(true);
  }
}

/** Runs `frontRun` after our settlement transaction is sent and before it is mined (same block, ours last). */
async function settleWhileFrontRun(nonce: bigint, settling: () => Promise<unknown>, frontRun: () => Promise<unknown>) {
  return whileNotMining(async () => {
    const answer = settling();
    for (let i = 0; i < 100 && recordOf(nonce)?.status !== "sent"; i++) await Bun.sleep(50);
    expect(recordOf(nonce)?.status).toBe("sent");
    await Bun.sleep(100);
    await frontRun();
    await c.test.mine({ blocks: 1 });
    return answer;
  });
}

describe("x402 exact with Permit2 on bsc (a token without EIP-3009)", () => {
  test("/supported lists eip155:56 (Permit2 and x402's proxy are on the chain) beside base", async () => {
    const supported = await facilitator.getSupported();
    const bsc = supported.kinds.find((kind) => kind.network === "eip155:56");
    expect(bsc).toMatchObject({ x402Version: 2, scheme: "exact" });
    // Its tokens without EIP-3009 (USDT, DAI, PUSD) are listed as paid through Permit2, USDC with EIP-3009.
    const assets =
      (bsc?.extra as { assets: { symbol: string; assetTransferMethod: string }[] } | undefined)?.assets ?? [];
    expect(Object.fromEntries(assets.map((asset) => [asset.symbol, asset.assetTransferMethod]))).toEqual({
      USDT: "permit2",
      DAI: "permit2",
      PUSD: "permit2",
      USDC: "eip3009",
    });
  });

  test("verify and settle pay the merchant exactly the price through x402's proxy, once", async () => {
    const buyer = await permit2Buyer();
    const requirements = bscRequirements(price);
    const payment = await buyer.pay(requirements);
    expect(permitOf(payment).permit2Authorization.spender).toBe("0x402085c248EeA27D92E8b30b2C58ed07f9E20001");
    expect(await facilitator.verify(payment, requirements)).toMatchObject({ isValid: true, payer: buyer.address });

    const buyerBefore = await balanceOf(buyer.address);
    const settled = await settle(payment, requirements);
    expect(settled).toMatchObject({
      success: true,
      payer: buyer.address,
      network: "eip155:56",
      amount: price.toString(),
    });
    expect(await balanceOf(requirements.payTo)).toBe(price);
    expect(await balanceOf(buyer.address)).toBe(buyerBefore - price);
    // Recorded in Permit2's nonce space, with Permit2's nonce.
    const nonce = BigInt(permitOf(payment).permit2Authorization.nonce);
    expect(recordOf(nonce)).toMatchObject({ contract: PERMIT2.toLowerCase(), status: "success" });

    expect(await settle(payment, requirements)).toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_nonce_already_used",
    });
    expect(await facilitator.verify(payment, requirements)).toMatchObject({
      isValid: false,
      invalidReason: "permit2_invalid_nonce",
    });
    expect(await balanceOf(requirements.payTo)).toBe(price);
  });

  test("three concurrent settles of one payment: one success, the others nonce_already_used, paid once", async () => {
    const buyer = await permit2Buyer();
    const requirements = bscRequirements(price);
    const payment = await buyer.pay(requirements);
    const answers = await Promise.all([1, 2, 3].map(() => settle(payment, requirements)));
    expect(answers.filter((answer) => answer.success)).toHaveLength(1);
    for (const answer of answers.filter((a) => !a.success))
      expect(answer.errorReason).toBe("invalid_exact_evm_nonce_already_used");
    expect(await balanceOf(requirements.payTo)).toBe(price);
  });

  test("a buyer without funds, or that never approved Permit2: refused, nothing sent", async () => {
    const poor = await permit2Buyer({ tokens: 0n });
    const unapproved = await permit2Buyer({ approve: false });
    for (const [buyer, reason] of [
      [poor, "permit2_insufficient_balance"],
      [unapproved, "permit2_allowance_required"],
    ] as const) {
      const requirements = bscRequirements(price);
      const payment = await buyer.pay(requirements);
      expect(await facilitator.verify(payment, requirements)).toMatchObject({ isValid: false, invalidReason: reason });
      expect(await settle(payment, requirements)).toMatchObject({ success: false, errorReason: reason });
      expect(await balanceOf(requirements.payTo)).toBe(0n);
    }
    expect(await balanceOf(unapproved.address)).toBe(1000n * 10n ** 18n);
  });

  test("amount or recipient changed after signing: invalid_permit2_signature; a mismatch with the requirements is named", async () => {
    const buyer = await permit2Buyer();
    const requirements = bscRequirements(price);
    const payment = await buyer.pay(requirements);
    const thief = randomAddress();
    const cases: [PaymentPayload, PaymentRequirements, string][] = [
      [
        tamperedPermit(payment, (p) => ({ ...p, permitted: { ...p.permitted, amount: (price * 10n).toString() } })),
        { ...requirements, amount: (price * 10n).toString() },
        "invalid_permit2_signature",
      ],
      [
        tamperedPermit(payment, (p) => ({ ...p, witness: { ...p.witness, to: thief } })),
        { ...requirements, payTo: thief },
        "invalid_permit2_signature",
      ],
      [payment, { ...requirements, payTo: thief }, "invalid_permit2_recipient_mismatch"],
      [payment, { ...requirements, amount: (price - 1n).toString() }, "permit2_amount_mismatch"],
      [tamperedPermit(payment, (p) => ({ ...p, spender: PERMIT2 })), requirements, "invalid_permit2_spender"],
    ];
    for (const [tampered, asked, reason] of cases) {
      expect(await facilitator.verify(tampered, asked)).toMatchObject({ isValid: false, invalidReason: reason });
      expect(await settle(tampered, asked)).toMatchObject({ success: false, errorReason: reason });
    }
    expect(await balanceOf(requirements.payTo)).toBe(0n);
    expect(await balanceOf(thief)).toBe(0n);
    // The untouched payment still settles.
    expect(await settle(payment, requirements)).toMatchObject({ success: true });
    expect(await balanceOf(requirements.payTo)).toBe(price);
  });

  test("a permit at the edges of uint256 (nonce and deadline 2^256-1) settles once like any other", async () => {
    const buyer = await permit2Buyer();
    const requirements = bscRequirements(price);
    const edge = await signPermit(buyer.key, {
      to: requirements.payTo as Address,
      amount: price,
      nonce: maxUint256,
      deadline: maxUint256,
    });
    const payment = { ...(await buyer.pay(requirements)), payload: edge };
    expect(await settle(payment, requirements)).toMatchObject({ success: true });
    expect(await settle(payment, requirements)).toMatchObject({ success: false });
    expect(await balanceOf(requirements.payTo)).toBe(price);
  });

  test("a deadline inside the margin (or past): permit2_deadline_expired, nothing sent", async () => {
    const buyer = await permit2Buyer();
    const requirements = bscRequirements(price, { maxTimeoutSeconds: 3 }); // the devnet's margin is 6 s
    const payment = await buyer.pay(requirements);
    expect(await settle(payment, requirements)).toMatchObject({
      success: false,
      errorReason: "permit2_deadline_expired",
    });
    expect(await balanceOf(requirements.payTo)).toBe(0n);
  });

  test("a Permit2 nonce reused by a second permit after the first settled: permit2_invalid_nonce, paid once", async () => {
    const buyer = await permit2Buyer();
    const requirements = bscRequirements(price);
    const payment = await buyer.pay(requirements);
    expect(await settle(payment, requirements)).toMatchObject({ success: true });
    const nonce = BigInt(permitOf(payment).permit2Authorization.nonce);
    const again = await signPermit(buyer.key, { to: requirements.payTo as Address, amount: price, nonce });
    const second = { ...payment, payload: again };
    expect(await facilitator.verify(second, requirements)).toMatchObject({
      isValid: false,
      invalidReason: "permit2_invalid_nonce",
    });
    expect(await settle(second, requirements)).toMatchObject({ success: false });
    expect(await balanceOf(requirements.payTo)).toBe(price);
  });

  test("front-run by the payer spending the nonce on another permit: never a success, the merchant is not paid", async () => {
    const buyer = await permit2Buyer();
    const requirements = bscRequirements(price);
    const payment = await buyer.pay(requirements);
    const nonce = BigInt(permitOf(payment).permit2Authorization.nonce);
    const accomplice = randomAddress();
    const theft = await signPermit(buyer.key, { to: accomplice, amount: 1n, nonce });
    const settled = await settleWhileFrontRun(
      nonce,
      () => settle(payment, requirements),
      () => submitToProxy(buyer.key, theft),
    );
    expect(settled).toMatchObject({ success: false, errorReason: "permit2_invalid_nonce" });
    expect(await balanceOf(requirements.payTo)).toBe(0n);
    expect(await balanceOf(accomplice)).toBe(1n);
    expect(await settle(payment, requirements)).toMatchObject({ success: false });
  });

  test("front-run by someone else submitting this very permit: it counts (its Transfer matches), once", async () => {
    const buyer = await permit2Buyer();
    const stranger = await freshPayer("bsc", { tokens: 0n });
    const requirements = bscRequirements(price);
    const payment = await buyer.pay(requirements);
    const nonce = BigInt(permitOf(payment).permit2Authorization.nonce);
    const settled = await settleWhileFrontRun(
      nonce,
      () => settle(payment, requirements),
      () => submitToProxy(stranger.key, permitOf(payment)),
    );
    expect(settled).toMatchObject({ success: true });
    expect(await balanceOf(requirements.payTo)).toBe(price);
    expect(await settle(payment, requirements)).toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_nonce_already_used",
    });
  });

  test("this very permit executed through another contract (Multicall3) first: recognised from the trace, once", async () => {
    const buyer = await permit2Buyer();
    const stranger = await freshPayer("bsc", { tokens: 0n });
    const requirements = bscRequirements(price);
    const payment = await buyer.pay(requirements);
    const { permit2Authorization: p, signature } = permitOf(payment);
    const settleCall = encodeFunctionData({
      abi: x402ExactPermit2ProxyAbi,
      functionName: "settle",
      args: [
        {
          permitted: { token: p.permitted.token, amount: BigInt(p.permitted.amount) },
          nonce: BigInt(p.nonce),
          deadline: BigInt(p.deadline),
        },
        p.from,
        { to: p.witness.to, validAfter: BigInt(p.witness.validAfter) },
        signature,
      ],
    });
    const settled = await settleWhileFrontRun(
      BigInt(p.nonce),
      () => settle(payment, requirements),
      () =>
        c.walletFor(stranger.key).writeContract({
          address: MULTICALL3,
          abi: parseAbi([
            "struct Call3 { address target; bool allowFailure; bytes callData; }",
            "struct Result { bool success; bytes returnData; }",
            "function aggregate3(Call3[] calls) payable returns (Result[] returnData)",
          ]),
          functionName: "aggregate3",
          args: [[{ target: X402_EXACT_PERMIT2_PROXY, allowFailure: false, callData: settleCall }]],
          gas: 400_000n,
          maxPriorityFeePerGas: 100n * 10n ** 9n,
          maxFeePerGas: 1000n * 10n ** 9n,
        }),
    );
    expect(settled).toMatchObject({ success: true });
    expect(await balanceOf(requirements.payTo)).toBe(price);
    expect(await settle(payment, requirements)).toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_nonce_already_used",
    });
  });

  test("the nonce invalidated by the payer (Permit2's invalidateUnorderedNonces) while settling: refused, unpaid", async () => {
    const buyer = await permit2Buyer();
    const requirements = bscRequirements(price);
    const payment = await buyer.pay(requirements);
    const nonce = BigInt(permitOf(payment).permit2Authorization.nonce);
    const settled = await settleWhileFrontRun(
      nonce,
      () => settle(payment, requirements),
      () =>
        c.walletFor(buyer.key as Hex).writeContract({
          address: PERMIT2,
          abi: parseAbi(["function invalidateUnorderedNonces(uint256 wordPos, uint256 mask)"]),
          functionName: "invalidateUnorderedNonces",
          args: [nonce >> 8n, 1n << (nonce & 255n)],
          gas: 100_000n,
          maxPriorityFeePerGas: 100n * 10n ** 9n,
          maxFeePerGas: 1000n * 10n ** 9n,
        }),
    );
    expect(settled).toMatchObject({ success: false, errorReason: "permit2_invalid_nonce" });
    expect(await balanceOf(requirements.payTo)).toBe(0n);
  });

  test("x402 off on bsc: eip155:56 absent from /supported and its payments invalid_network", async () => {
    const off = others.start({}, (config) => {
      if (config.networks.bsc) config.networks.bsc.x402 = { enabled: false };
    });
    const kinds = (await off.get("/supported")).body.kinds as { network: string }[];
    expect(kinds.map((kind) => kind.network)).not.toContain("eip155:56");
    const buyer = await permit2Buyer();
    const requirements = bscRequirements(price);
    const body = { x402Version: 2, paymentPayload: await buyer.pay(requirements), paymentRequirements: requirements };
    expect((await off.post("/verify", body)).body).toMatchObject({ isValid: false, invalidReason: "invalid_network" });
    expect((await off.post("/settle", body)).body).toMatchObject({ success: false, errorReason: "invalid_network" });
    expect(await balanceOf(requirements.payTo)).toBe(0n);
  });

  test("a chain without x402's proxy: /supported lists only bsc's EIP-3009 token, payments permit2_proxy_not_deployed", async () => {
    const code = await c.public.getCode({ address: X402_EXACT_PERMIT2_PROXY });
    const fresh = others.start(); // its own view of the chain (a deployed proxy, once seen, is remembered)
    const buyer = await permit2Buyer();
    const requirements = bscRequirements(price);
    const body = { x402Version: 2, paymentPayload: await buyer.pay(requirements), paymentRequirements: requirements };
    await c.test.setCode({ address: X402_EXACT_PERMIT2_PROXY, bytecode: "0x" });
    try {
      const kinds = (await fresh.get("/supported")).body.kinds as {
        network: string;
        extra: { assets: { symbol: string; assetTransferMethod: string }[] };
      }[];
      expect(kinds.map((kind) => kind.network)).toEqual(["eip155:56", "eip155:8453", "base"]);
      expect(kinds[0]?.extra.assets.map((asset) => `${asset.symbol}:${asset.assetTransferMethod}`)).toEqual([
        "USDC:eip3009",
      ]);
      expect((await fresh.post("/settle", body)).body).toMatchObject({
        success: false,
        errorReason: "permit2_proxy_not_deployed",
      });
    } finally {
      await c.test.setCode({ address: X402_EXACT_PERMIT2_PROXY, bytecode: code ?? "0x" });
    }
    expect(await balanceOf(requirements.payTo)).toBe(0n);
  });
});
