import { afterAll, describe, expect, test } from "bun:test";
import { erc20Abi } from "@relay402/client/wire/abis";
import { encodeBatchExecution } from "@relay402/client/wire/execution";
import { encodePath } from "@relay402/client/wire/swap/path";
import type { Address, Hex } from "viem";
import { ENTRY_POINT_V07 } from "../../src/chain/addresses";
import type { SwapOrder } from "../../src/swap/swap-authorization";
import { SwapRefusal, swapRefusalOf, walletSwapCalls } from "../../src/swap/verify-wallet-swap";
import { SimulatedRevertError, simulateUserOpCalls } from "../../src/userops/simulate";
import { userOpNetworkOf } from "../../src/userops/user-op-network";
import { NETWORK_NAMES, pendingTransactionTo, randomAddress, tokenBalance } from "../support/chain";
import { swapTokensOf, v3Whale } from "../support/dex";
import { startTestService } from "../support/service";
import { expectRefusal, paymasterDeposit, settleBody } from "../wallets/support";
import { balances, mined, relayerHoldsNothing, verifyBody, walletHolding } from "./wallet-swap-support";

const service = startTestService();
afterAll(() => service.stop());

describe("smart-wallet swaps over HTTP (/wallet/swap/verify, /wallet/swap/settle)", () => {
  for (const network of NETWORK_NAMES) {
    // Each route kind the devnet seeded as the best for one pair: V3 direct and two-hop, V2 direct and two-hop.
    for (const [sell, buy, kind, hops] of [
      ["m", "w", "v3", 1],
      ["m", "dai", "v3", 2],
      ["dai", "w", "v2", 1],
      ["dai", "m", "v2", 2],
    ] as const) {
      test(`${network}: ${sell.toUpperCase()} -> ${buy.toUpperCase()} (${kind}, ${hops} hop) with exact balances; settled twice at once and again, one execution`, async () => {
        const t = swapTokensOf(network);
        const sellToken = t[sell];
        const buyToken = t[buy];
        const sellAmount = 40n * (sell === "m" ? t.unit : 10n ** 18n);
        // The wallet holds more than it sells: it must lose exactly sellAmount, not its balance.
        const { owner, wallet } = await walletHolding(network, sellToken, sellAmount + 7n);
        const recipient = randomAddress();

        const verified = await service.post(
          "/wallet/swap/verify",
          verifyBody(network, wallet, { sellToken, buyToken, sellAmount, recipient }),
        );
        expect(verified.status).toBe(200);
        const quote = verified.body;
        expect(quote).toMatchObject({
          isValid: true,
          payer: owner.address,
          totalAmount: sellAmount.toString(),
          recipient,
          slippageBps: 50,
        });
        expect(quote.route.map((hop: { kind: string }) => hop.kind)).toEqual(Array(hops).fill(kind));
        expect(BigInt(quote.minBuyAmount)).toBe((BigInt(quote.buyAmount) * 9950n) / 10000n);
        expect(BigInt(quote.feeAmount)).toBeGreaterThan(0n);
        expect(quote.userOp.sender).toBe(wallet);

        const before = await balances(network, {
          wallet: [sellToken, wallet],
          feeRecipient: [sellToken, t.c.info.feeRecipient],
          recipient: [buyToken, recipient],
        });
        const body = await settleBody(quote, owner);
        const [first, second] = await Promise.all([
          service.post("/wallet/swap/settle", body),
          service.post("/wallet/swap/settle", body),
        ]);
        expect(first.status).toBe(200);
        expect(second.body).toEqual(first.body);
        const third = await service.post("/wallet/swap/settle", body);
        expect(third.body).toEqual(first.body);

        const settled = first.body;
        expect(settled).toMatchObject({
          success: true,
          userOpHash: quote.userOpHash,
          paymentId: quote.userOpHash,
          payments: [{ to: t.c.info.relayer, amount: sellAmount.toString(), token: sellToken }],
          swap: { sellToken, buyToken, sellAmount: sellAmount.toString(), fee: quote.feeAmount, recipient },
        });
        const after = await balances(network, {
          wallet: [sellToken, wallet],
          feeRecipient: [sellToken, t.c.info.feeRecipient],
          recipient: [buyToken, recipient],
        });
        expect((before.wallet as bigint) - (after.wallet as bigint)).toBe(sellAmount);
        expect(after.wallet).toBe(7n);
        expect((after.feeRecipient as bigint) - (before.feeRecipient as bigint)).toBe(BigInt(quote.feeAmount));
        const received = (after.recipient as bigint) - (before.recipient as bigint);
        expect(received).toBe(BigInt(settled.swap.buyAmount));
        expect(received).toBeGreaterThanOrEqual(BigInt(quote.minBuyAmount));
        await relayerHoldsNothing(network);
        // One execution: the transaction holds this UserOp's swap, and the record names it.
        const receipt = await t.c.public.getTransactionReceipt({ hash: settled.txHash as Hex });
        expect(receipt.status).toBe("success");
        expect((await service.services.wallets.store.find(quote.userOpHash))?.txHash).toBe(settled.txHash);
      });
    }
  }

  test("a front-running trade that moves the price below minBuyAmount: settle 400 with nothing sent, verify isValid false; settles once the price is back", async () => {
    const network = "bsc";
    const t = swapTokensOf(network);
    const sellAmount = 50n * t.unit;
    const { owner, wallet } = await walletHolding(network, t.m, sellAmount);
    const recipient = randomAddress();
    const verified = await service.post(
      "/wallet/swap/verify",
      verifyBody(network, wallet, { sellToken: t.m, buyToken: t.w, sellAmount, slippageBps: 10, recipient }),
    );
    expect(verified.body).toMatchObject({ isValid: true });
    const quote = verified.body;
    expect(quote.route).toMatchObject([{ kind: "v3", tokenIn: t.m, tokenOut: t.w }]);
    const body = await settleBody(quote, owner);

    // The front-runner buys W with M on the V3 pool the UserOp routes through.
    const whale = await v3Whale(network, quote.route[0].fee);
    const deposit = await paymasterDeposit(network);
    try {
      await mined(network, await whale.buy(20_000n * t.unit));
      const settled = await service.post("/wallet/swap/settle", body);
      expectRefusal(settled, 400, "payment_verification_error");
      expect(settled.body.message).toBe("price moved below minBuyAmount");
      // Nothing was sent: the paymaster paid nothing, the wallet kept everything, the UserOp is still issued.
      expect(await paymasterDeposit(network)).toBe(deposit);
      expect(await tokenBalance(network, t.m, wallet)).toBe(sellAmount);
      expect(await tokenBalance(network, t.w, recipient)).toBe(0n);
      expect((await service.services.wallets.store.find(quote.userOpHash))?.status).toBe("issued");

      // The same order asked again now: 200 isValid false, and nothing issued.
      const again = await service.post(
        "/wallet/swap/verify",
        verifyBody(network, wallet, {
          sellToken: t.m,
          buyToken: t.w,
          sellAmount,
          minBuyAmount: BigInt(quote.minBuyAmount),
          recipient,
        }),
      );
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({
        isValid: false,
        payer: owner.address,
        invalidReason: "payment_verification_error",
        invalidMessage: "price moved below minBuyAmount",
        minBuyAmount: quote.minBuyAmount,
      });
      expect(BigInt(again.body.buyAmount)).toBeLessThan(BigInt(quote.minBuyAmount));
      expect(again.body.userOp).toBeUndefined();
    } finally {
      await whale.restore();
    }
    const retried = await service.post("/wallet/swap/settle", body);
    expect(retried.status).toBe(200);
    expect(BigInt(retried.body.swap.buyAmount)).toBeGreaterThanOrEqual(BigInt(quote.minBuyAmount));
    expect(await tokenBalance(network, t.w, recipient)).toBe(BigInt(retried.body.swap.buyAmount));
    expect(await tokenBalance(network, t.m, wallet)).toBe(0n);
  });

  test("a front-running trade mined before the UserOp, after settle's check: the UserOp reverts, the wallet keeps sellAmount, the recipient gets nothing", async () => {
    const network = "bsc";
    const t = swapTokensOf(network);
    const sellAmount = 50n * t.unit;
    const { owner, wallet } = await walletHolding(network, t.m, sellAmount);
    const recipient = randomAddress();
    const verified = await service.post(
      "/wallet/swap/verify",
      verifyBody(network, wallet, { sellToken: t.m, buyToken: t.w, sellAmount, slippageBps: 10, recipient }),
    );
    expect(verified.body).toMatchObject({ isValid: true, route: [{ kind: "v3" }] });
    const quote = verified.body;
    const body = await settleBody(quote, owner);
    const whale = await v3Whale(network, quote.route[0].fee);

    // Blocks stop: settle's pre-send check passes and the bundler's transaction (to the EntryPoint) waits in the
    // pool, where the front-runner outbids it; both land in the next block, the front-runner first. Only the
    // bundler's own transaction counts: another test's leftover one in the pool would start the front-run before
    // settle's check.
    await t.c.test.setAutomine(false);
    let settling: Promise<{ status: number; body: any }> | undefined;
    try {
      settling = service.post("/wallet/swap/settle", body);
      const deadline = Date.now() + 15_000;
      while (!(await pendingTransactionTo(network, ENTRY_POINT_V07))) {
        if (Date.now() > deadline) throw new Error("the bundler sent nothing");
        await Bun.sleep(25);
      }
      await whale.buy(20_000n * t.unit, 1_000n * 10n ** 9n);
      await t.c.test.mine({ blocks: 1 });
    } finally {
      await t.c.test.setAutomine(true);
    }
    try {
      const settled = await settling;
      expectRefusal(settled, 500, "blockchain_error");
      expect(settled.body.message).toBe("the UserOp reverted on-chain");
      expect(settled.body.details.status).toBe("reverted");
      // The whole batch reverted: no approval left, nothing moved, nothing stuck in the relayer.
      expect(await tokenBalance(network, t.m, wallet)).toBe(sellAmount);
      expect(await tokenBalance(network, t.w, recipient)).toBe(0n);
      expect(
        await t.c.public.readContract({
          address: t.m,
          abi: erc20Abi,
          functionName: "allowance",
          args: [wallet, t.c.info.relayer],
        }),
      ).toBe(0n);
      await relayerHoldsNothing(network);
      // A repeat answers the stored result and sends nothing.
      expect((await service.post("/wallet/swap/settle", body)).body).toEqual(settled.body);
    } finally {
      await whale.restore();
    }
  });

  test("three wallet swaps reverted by a front-run: the owner's wallet payments still settle, its next swap is refused (validation_error, walletAddress)", async () => {
    const network = "bsc";
    const t = swapTokensOf(network);
    const sellAmount = 50n * t.unit;
    const { owner, wallet } = await walletHolding(network, t.m, 4n * sellAmount);
    const swapBody = (recipient: Address) =>
      verifyBody(network, wallet, { sellToken: t.m, buyToken: t.w, sellAmount, slippageBps: 10, recipient });

    for (let i = 0; i < service.config.denySwapsAfterReverts; i++) {
      const recipient = randomAddress();
      const verified = await service.post("/wallet/swap/verify", swapBody(recipient));
      expect(verified.body).toMatchObject({ isValid: true, route: [{ kind: "v3" }] });
      const body = await settleBody(verified.body, owner);
      const whale = await v3Whale(network, verified.body.route[0].fee);
      // As above: the bundler's transaction waits in the pool, the front-run outbids it into the same block.
      await t.c.test.setAutomine(false);
      let settling: Promise<{ status: number; body: any }> | undefined;
      try {
        settling = service.post("/wallet/swap/settle", body);
        const deadline = Date.now() + 15_000;
        while (!(await pendingTransactionTo(network, ENTRY_POINT_V07))) {
          if (Date.now() > deadline) throw new Error("the bundler sent nothing");
          await Bun.sleep(25);
        }
        await whale.buy(20_000n * t.unit, 1_000n * 10n ** 9n);
        await t.c.test.mine({ blocks: 1 });
      } finally {
        await t.c.test.setAutomine(true);
      }
      try {
        const settled = await settling;
        expectRefusal(settled, 500, "blockchain_error");
        const receipt = await t.c.public.getTransactionReceipt({ hash: settled.body.details.txHash as Hex });
        expect(receipt.status).toBe("success"); // the bundle; the UserOp inside it reverted:
        expect(await tokenBalance(network, t.m, wallet)).toBe(4n * sellAmount);
        expect(await tokenBalance(network, t.w, recipient)).toBe(0n);
      } finally {
        await whale.restore();
      }
    }

    // A wallet payment of the same owner: issued, settled, the tokens moved on-chain.
    const to = randomAddress();
    const payment = await service.post("/wallet/verify", {
      walletAddress: wallet,
      transactions: [{ to, amount: t.unit.toString(), token: t.m }],
      paymentRequirements: { network },
    });
    expect(payment.status).toBe(200);
    expect(payment.body.isValid).toBe(true);
    const paid = await service.post("/wallet/settle", await settleBody(payment.body, owner));
    expect(paid.status).toBe(200);
    expect(await tokenBalance(network, t.m, to)).toBe(t.unit);

    // The owner's next swap, the price back: refused before anything is issued or sponsored.
    const refused = await service.post("/wallet/swap/verify", swapBody(randomAddress()));
    expectRefusal(refused, 400, "validation_error", "walletAddress");
    expect(refused.body.message).toBe("wallet owner's swaps refused after repeated swaps reverted by a price move");
    expect(await tokenBalance(network, t.m, wallet)).toBe(4n * sellAmount - BigInt(payment.body.totalAmount));
  });

  test("the simulation runs the wallet's batch as the EntryPoint would: a minimum the route cannot pay and a router the relayer does not whitelist are refusals, a good batch passes", async () => {
    const network = "base";
    const t = swapTokensOf(network);
    const sellAmount = 10n * t.unit;
    const { wallet } = await walletHolding(network, t.m, sellAmount);
    const userOps = userOpNetworkOf(service.services.networks.get(network));
    const order: SwapOrder = {
      sellToken: t.m,
      buyToken: t.w,
      sellAmount,
      minBuyAmount: 1n,
      recipient: wallet,
      fee: sellAmount / 100n,
    };
    const v3 = { router: t.dex.v3.router, path: encodePath("v3", [{ tokenIn: t.m, tokenOut: t.w, fee: 500 }]) };
    // The kernel's simulation, answered as the wallet swap flow answers its reverts.
    const simulate = (o: SwapOrder, route: { router: Address; path: Hex }) =>
      simulateUserOpCalls(userOps, wallet, encodeBatchExecution(walletSwapCalls(t.c.info.relayer, o, route))).catch(
        (error: unknown) => {
          throw error instanceof SimulatedRevertError ? swapRefusalOf(error) : error;
        },
      );
    await simulate(order, v3);
    const refusal = (promise: Promise<void>) =>
      promise.then(
        () => null,
        (error: unknown) => (error instanceof SwapRefusal ? [error.code, error.message] : error),
      );
    expect(await refusal(simulate({ ...order, minBuyAmount: 10n ** 30n }, v3))).toEqual([
      "payment_verification_error",
      "price moved below minBuyAmount",
    ]);
    expect(await refusal(simulate(order, { ...v3, router: randomAddress() }))).toEqual([
      "payment_verification_error",
      "the swap would revert: RouterNotWhitelisted",
    ]);
    // A simulation moves nothing.
    expect(await tokenBalance(network, t.m, wallet)).toBe(sellAmount);
  });
});
