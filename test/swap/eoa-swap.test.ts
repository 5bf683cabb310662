import { afterAll, describe, expect, test } from "bun:test";
import { erc20Abi } from "@relay402/client/wire/abis";
import { paymentIdOf } from "@relay402/client/wire/payment-id";
import { relayerSwapAbi } from "@relay402/client/wire/swap/abis";
import { encodePath } from "@relay402/client/wire/swap/path";
import { type Address, getAddress, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { NetworkName } from "../../scripts/devnet/start";
import { parseSwapAuthorization } from "../../src/swap/swap-authorization";
import { swapSettlementOf } from "../../src/swap/swap-store";
import { approveRelayer, freshPayer, NETWORK_NAMES, randomAddress, tokenBalance } from "../support/chain";
import { swapTokensOf, v3Whale } from "../support/dex";
import { startTestService } from "../support/service";

const service = startTestService();
afterAll(() => service.stop());

type Change = (message: Record<string, unknown>) => Record<string, unknown>;
type Payer = Awaited<ReturnType<typeof freshPayer>>;

/** A quote in mode eoa, signed as it comes (optionally changed first), and the /swap/verify|settle body. */
async function signedSwap(
  network: NetworkName,
  payer: Payer,
  order: { sellToken?: Address; buyToken: Address; sellAmount: bigint; slippageBps?: number; recipient?: Address },
  change: (message: Record<string, unknown>) => Record<string, unknown> = (message) => message,
) {
  const t = swapTokensOf(network);
  const response = await service.post("/swap/quote", {
    network,
    sellToken: order.sellToken ?? t.m,
    buyToken: order.buyToken,
    sellAmount: order.sellAmount.toString(),
    mode: "eoa",
    from: payer.address,
    ...(order.slippageBps !== undefined ? { slippageBps: order.slippageBps } : {}),
    ...(order.recipient ? { recipient: order.recipient } : {}),
  });
  expect(response.status).toBe(200);
  const quote = response.body;
  const { domain, types, primaryType } = quote.typedData;
  const message = change(quote.typedData.message);
  const signature = await privateKeyToAccount(payer.key).signTypedData({ domain, types, primaryType, message });
  const body = {
    swapPayload: { authorization: quote.typedData.message, signature, path: quote.path },
    swapRequirements: { network, relayerContract: quote.relayerContract },
  };
  return { quote, body, signature };
}

const balances = async (network: NetworkName, holders: Record<string, [Address, Address]>) =>
  Object.fromEntries(
    await Promise.all(
      Object.entries(holders).map(async ([name, [token, holder]]) => [
        name,
        await tokenBalance(network, token, holder),
      ]),
    ),
  ) as Record<string, bigint>;

describe("EOA swaps over HTTP (/swap/verify, /swap/settle)", () => {
  for (const network of NETWORK_NAMES) {
    // Each route kind the devnet seeded as the best for one pair: V3 direct and two-hop, V2 direct and two-hop.
    for (const [sell, buy, kind, hops] of [
      ["m", "w", "v3", 1],
      ["m", "dai", "v3", 2],
      ["dai", "w", "v2", 1],
      ["dai", "m", "v2", 2],
    ] as const) {
      test(`${network}: ${sell.toUpperCase()} -> ${buy.toUpperCase()} (${kind}, ${hops} hop) settles with exact balances; settled twice, one transaction`, async () => {
        const t = swapTokensOf(network);
        const payer = await freshPayer(network);
        const sellToken = t[sell];
        const sellAmount = 40n * (sell === "m" ? t.unit : 10n ** 18n);
        if (sell === "dai") {
          await t.c.public.waitForTransactionReceipt({
            hash: await t.c.walletFor(payer.key).writeContract({
              address: t.dai,
              abi: erc20Abi,
              functionName: "mint",
              args: [payer.address, sellAmount],
            }),
            pollingInterval: 50,
          });
        }
        await approveRelayer(network, payer.key, sellAmount, sellToken);
        const recipient = randomAddress();
        const buyToken = t[buy];
        const { quote, body } = await signedSwap(network, payer, { sellToken, buyToken, sellAmount, recipient });
        expect(quote.route.map((hop: { kind: string }) => hop.kind)).toEqual(Array(hops).fill(kind));
        const before = await balances(network, {
          payer: [sellToken, payer.address],
          feeRecipient: [sellToken, t.c.info.feeRecipient],
          recipient: [buyToken, recipient],
        });

        const verified = await service.post("/swap/verify", body);
        expect(verified.status).toBe(200);
        expect(verified.body).toMatchObject({ isValid: true, payer: payer.address });
        expect(BigInt(verified.body.buyAmount)).toBeGreaterThanOrEqual(BigInt(quote.minBuyAmount));

        const [first, second] = await Promise.all([
          service.post("/swap/settle", body),
          service.post("/swap/settle", body),
        ]);
        expect(first.status).toBe(200);
        expect(second.body).toEqual(first.body);
        // The claim wrote the id the answer names: the row holds it as soon as the settle answers.
        const key = { network, payer: payer.address, nonce: body.swapPayload.authorization.nonce };
        expect(service.swapStore.find(key)?.paymentId).toBe(first.body.paymentId);
        const third = await service.post("/swap/settle", body);
        expect(third.body.transaction).toBe(first.body.transaction);

        const settled = first.body;
        expect(settled).toMatchObject({
          success: true,
          network,
          payer: payer.address,
          swap: {
            sellToken: getAddress(sellToken),
            buyToken: getAddress(buyToken),
            sellAmount: sellAmount.toString(),
            fee: quote.fee,
            recipient: getAddress(recipient),
          },
        });
        const after = await balances(network, {
          payer: [sellToken, payer.address],
          feeRecipient: [sellToken, t.c.info.feeRecipient],
          recipient: [buyToken, recipient],
        });
        expect((before.payer as bigint) - (after.payer as bigint)).toBe(sellAmount);
        expect((after.feeRecipient as bigint) - (before.feeRecipient as bigint)).toBe(BigInt(quote.fee));
        const received = (after.recipient as bigint) - (before.recipient as bigint);
        expect(received).toBe(BigInt(settled.swap.buyAmount));
        expect(received).toBeGreaterThanOrEqual(BigInt(quote.minBuyAmount));
        for (const token of [t.m, t.w, t.dai]) expect(await tokenBalance(network, token, t.c.info.relayer)).toBe(0n);
        // One transaction: the payer's sell token left once, and the record says the same hash.
        const receipt = await t.c.public.getTransactionReceipt({ hash: settled.transaction as Hex });
        expect(receipt.status).toBe("success");
        expect(
          service.swapStore.find({
            network,
            payer: payer.address,
            nonce: body.swapPayload.authorization.nonce,
          })?.txHash,
        ).toBe(settled.transaction);
      });
    }
  }

  test("a front-running trade that moves the price below minBuyAmount: verify isValid false, settle 400, nothing lost", async () => {
    const network = "bsc";
    const t = swapTokensOf(network);
    const payer = await freshPayer(network);
    const sellAmount = 50n * t.unit;
    await approveRelayer(network, payer.key, sellAmount);
    const recipient = randomAddress();
    const { quote, body } = await signedSwap(network, payer, { buyToken: t.w, sellAmount, slippageBps: 10, recipient });
    expect(await service.post("/swap/verify", body)).toMatchObject({ body: { isValid: true } });

    // The front-runner buys W with M on the V3 pool the quote routes through (the best route).
    expect(quote.route).toMatchObject([{ kind: "v3", tokenIn: t.m, tokenOut: t.w }]);
    const whale = await v3Whale(network, quote.route[0].fee);
    try {
      const bought = await t.c.public.waitForTransactionReceipt({
        hash: await whale.buy(20_000n * t.unit),
        pollingInterval: 50,
      });
      expect(bought.status).toBe("success");
      const verified = await service.post("/swap/verify", body);
      expect(verified.status).toBe(200);
      expect(verified.body).toMatchObject({
        isValid: false,
        payer: payer.address,
        invalidReason: "payment_verification_error",
        invalidMessage: "price moved below minBuyAmount",
      });
      expect(BigInt(verified.body.buyAmount)).toBeLessThan(BigInt(quote.minBuyAmount));
      const settled = await service.post("/swap/settle", body);
      expect([settled.status, settled.body.code, settled.body.message]).toEqual([
        400,
        "payment_verification_error",
        "price moved below minBuyAmount",
      ]);
      expect(await tokenBalance(network, t.m, payer.address)).toBe(1000n * t.unit);
      expect(await tokenBalance(network, t.w, recipient)).toBe(0n);
    } finally {
      // The price back where it was (about: the pool keeps the fees) for the files after this one.
      await whale.restore();
    }
    // The refused settle left nothing behind: with the price back, the same signed swap settles.
    const retried = await service.post("/swap/settle", body);
    expect(retried.status).toBe(200);
    expect(BigInt(retried.body.swap.buyAmount)).toBeGreaterThanOrEqual(BigInt(quote.minBuyAmount));
  });

  test("after a crash: a claimed swap never sent is released at start and settles; one the chain executed is recognised", async () => {
    const network = "base";
    const t = swapTokensOf(network);
    const unfinished = async () => {
      const payer = await freshPayer(network);
      const sellAmount = 10n * t.unit;
      await approveRelayer(network, payer.key, sellAmount);
      const signed = await signedSwap(network, payer, { buyToken: t.dai, sellAmount });
      const { authorization, signature } = parseSwapAuthorization(signed.body.swapPayload);
      // What a process that died between its claim and its broadcast leaves behind.
      const paymentId = paymentIdOf({
        chainId: t.c.info.chainId,
        contract: signed.quote.relayerContract as Address,
        payer: payer.address,
        nonce: authorization.nonce as Hex,
      });
      service.swapStore.claim(swapSettlementOf(network, authorization, signature, paymentId));
      return { ...signed, authorization, payer };
    };
    const neverSent = await unfinished();
    const executed = await unfinished();
    const blocked = await service.post("/swap/settle", neverSent.body);
    // In flight as far as this process knows: 202 under the id of the swap relayer's nonce space, never a 5xx.
    const swapId = (signed: typeof neverSent) =>
      paymentIdOf({
        chainId: t.c.info.chainId,
        contract: signed.quote.relayerContract as Address,
        payer: signed.payer.address,
        nonce: signed.authorization.nonce as Hex,
      });
    expect([blocked.status, blocked.body.status, blocked.body.paymentId]).toEqual([202, "pending", swapId(neverSent)]);
    expect(blocked.headers.get("location")).toBe(`/payments/${swapId(neverSent)}`);
    expect(blocked.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
    // Anyone may submit a signed swap: here the payer itself, on the route the quote named.
    const route = executed.quote.route as { kind: "v2" | "v3"; tokenIn: Address; tokenOut: Address; fee?: number }[];
    const kind = route[0]?.kind ?? "v2";
    const hops = route.map(({ tokenIn, tokenOut, fee }) => ({ tokenIn, tokenOut, ...(fee ? { fee } : {}) }));
    const direct = await t.c.walletFor(executed.payer.key).writeContract({
      address: t.c.info.relayer,
      abi: relayerSwapAbi,
      functionName: "swapWithAuthorization",
      args: [
        executed.authorization,
        executed.signature as Hex,
        { router: kind === "v2" ? t.dex.v2.router : t.dex.v3.router, path: encodePath(kind, hops) },
      ],
    });
    expect((await t.c.public.waitForTransactionReceipt({ hash: direct, pollingInterval: 50 })).status).toBe("success");

    await service.services.swaps.reconcile();

    const settled = await service.post("/swap/settle", neverSent.body);
    expect(settled.status).toBe(200);
    expect(settled.body.paymentId).toBe(swapId(neverSent));
    expect(await tokenBalance(network, t.m, neverSent.payer.address)).toBe(990n * t.unit);
    const recognised = await service.post("/swap/settle", executed.body);
    expect(recognised.status).toBe(200);
    expect(recognised.body.paymentId).toBe(swapId(executed));
    expect(recognised.body.transaction).toBe(direct);
    expect(BigInt(recognised.body.swap.buyAmount)).toBeGreaterThanOrEqual(BigInt(executed.quote.minBuyAmount));
    expect(await tokenBalance(network, t.m, executed.payer.address)).toBe(990n * t.unit);
  });

  describe("refusals, with no balance moved", () => {
    const network = "base";
    const cases: [string, (t: ReturnType<typeof swapTokensOf>) => Change, string, string][] = [
      [
        "expired",
        () => (m) => ({
          ...m,
          validAfter: Number(m.validAfter) - 1000,
          validBefore: Math.floor(Date.now() / 1000) - 1,
        }),
        "payment_verification_error",
        "expired",
      ],
      [
        "a fee below the rule's",
        () => (m) => ({ ...m, fee: (BigInt(String(m.fee)) - 1n).toString() }),
        "payment_verification_error",
        "fee must be at least",
      ],
      [
        "a minimum no route can pay",
        () => (m) => ({ ...m, minBuyAmount: (BigInt(String(m.minBuyAmount)) * 2n).toString() }),
        "payment_verification_error",
        "price moved below minBuyAmount",
      ],
    ];
    for (const [name, change, code, message] of cases) {
      test(`signed ${name}: verify isValid false, settle 400 ${code}`, async () => {
        const t = swapTokensOf(network);
        const payer = await freshPayer(network);
        const sellAmount = 10n * t.unit;
        await approveRelayer(network, payer.key, sellAmount);
        const { body } = await signedSwap(network, payer, { buyToken: t.dai, sellAmount }, change(t));
        // The body carries what was signed.
        const signed = change(t)(structuredClone(body.swapPayload.authorization));
        const sent = { ...body, swapPayload: { ...body.swapPayload, authorization: signed } };
        const verified = await service.post("/swap/verify", sent);
        expect(verified.body).toMatchObject({ isValid: false, invalidReason: code });
        expect(verified.body.invalidMessage).toContain(message);
        const settled = await service.post("/swap/settle", sent);
        expect([settled.status, settled.body.code]).toEqual([400, code]);
        expect(await tokenBalance(network, t.m, payer.address)).toBe(1000n * t.unit);
      });
    }

    for (const [name, tamper] of [
      ["a tampered minimum", (m: Record<string, unknown>) => ({ ...m, minBuyAmount: "1" })],
      ["a different recipient", (m: Record<string, unknown>) => ({ ...m, recipient: randomAddress() })],
      ["a larger fee", (m: Record<string, unknown>) => ({ ...m, fee: (BigInt(String(m.fee)) * 2n).toString() })],
    ] as const) {
      test(`${name} after signing: signature_error, nothing sent`, async () => {
        const t = swapTokensOf(network);
        const payer = await freshPayer(network);
        const sellAmount = 10n * t.unit;
        await approveRelayer(network, payer.key, sellAmount);
        const { body } = await signedSwap(network, payer, { buyToken: t.dai, sellAmount });
        const changed = {
          ...body,
          swapPayload: { ...body.swapPayload, authorization: tamper(body.swapPayload.authorization) },
        };
        const verified = await service.post("/swap/verify", changed);
        expect(verified.body).toMatchObject({ isValid: false, invalidReason: "signature_error" });
        const settled = await service.post("/swap/settle", changed);
        expect([settled.status, settled.body.code]).toEqual([400, "signature_error"]);
        expect(await tokenBalance(network, t.m, payer.address)).toBe(1000n * t.unit);
        expect(
          service.swapStore.find({
            network,
            payer: payer.address,
            nonce: body.swapPayload.authorization.nonce,
          }),
        ).toBeUndefined();
      });
    }

    for (const network of NETWORK_NAMES)
      test(`${network}: a signature that is not well-formed hex: 400 signature_error at verify and settle, as at /verify`, async () => {
        const t = swapTokensOf(network);
        const payer = await freshPayer(network);
        const { body, signature } = await signedSwap(network, payer, { buyToken: t.dai, sellAmount: 10n * t.unit });
        const malformed = [
          `0x${"zz".repeat(65)}`,
          signature.slice(2),
          `${signature}0`,
          "0x",
          "",
          `0x${"ab".repeat(4097)}`,
          `0x${"ab".repeat(64)}-1`,
        ];
        for (const bad of malformed) {
          const sent = { ...body, swapPayload: { ...body.swapPayload, signature: bad } };
          for (const path of ["/swap/verify", "/swap/settle", "/api/v1/swap/settle"]) {
            const answer = await service.post(path, sent);
            expect([answer.status, answer.body.code], `${path} ${bad.slice(0, 12)}`).toEqual([400, "signature_error"]);
            expect(answer.body.details).toMatchObject({ field: "swapPayload.signature" });
          }
        }
        expect(
          service.swapStore.find({ network, payer: payer.address, nonce: body.swapPayload.authorization.nonce }),
        ).toBeUndefined();
        expect(await tokenBalance(network, t.m, payer.address)).toBe(1000n * t.unit);
      });

    test("a sell token that is not whitelisted and a wrong relayer are refused", async () => {
      const t = swapTokensOf(network);
      const payer = await freshPayer(network);
      const { body } = await signedSwap(network, payer, { buyToken: t.dai, sellAmount: 10n * t.unit });
      const wrongToken = {
        ...body,
        swapPayload: { ...body.swapPayload, authorization: { ...body.swapPayload.authorization, sellToken: t.w } },
      };
      const refused = await service.post("/swap/settle", wrongToken);
      expect([refused.status, refused.body.code]).toEqual([400, "validation_error"]);
      const wrongRelayer = { ...body, swapRequirements: { network, relayerContract: randomAddress() } };
      expect((await service.post("/swap/verify", wrongRelayer)).body).toMatchObject({ isValid: false });
    });
  });
});
