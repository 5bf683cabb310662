import { afterAll, describe, expect, test } from "bun:test";
import { encodeBatchExecution } from "@relay402/client/wire/execution";
import { eq } from "drizzle-orm";
import type { Address } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { issuedUserOps } from "../../src/db/schema";
import type { SwapOrder } from "../../src/swap/swap-authorization";
import { walletSwapCalls } from "../../src/swap/verify-wallet-swap";
import { randomAddress, tokenBalance } from "../support/chain";
import { swapTokensOf } from "../support/dex";
import { startTestService } from "../support/service";
import { deployFundedWallet } from "../support/wallet";
import { expectRefusal, settleBody } from "../wallets/support";
import { verifyBody, walletHolding } from "./wallet-swap-support";

const service = startTestService();
afterAll(() => service.stop());

describe("smart-wallet swaps over HTTP: refusals, with no balance moved", () => {
  const network = "base";

  async function issued() {
    const t = swapTokensOf(network);
    const sellAmount = 10n * t.unit;
    const { owner, wallet } = await walletHolding(network, t.m, sellAmount);
    const recipient = randomAddress();
    const verified = await service.post(
      "/wallet/swap/verify",
      verifyBody(network, wallet, { sellToken: t.m, buyToken: t.dai, sellAmount, recipient }),
    );
    expect(verified.body).toMatchObject({ isValid: true });
    return { t, owner, wallet, recipient, sellAmount, quote: verified.body };
  }

  const nothingMoved = async (wallet: Address, recipient: Address, sellAmount: bigint) => {
    const t = swapTokensOf(network);
    expect(await tokenBalance(network, t.m, wallet)).toBe(sellAmount);
    expect(await tokenBalance(network, t.dai, recipient)).toBe(0n);
  };

  test("an expired UserOp: 400, call verify again", async () => {
    const { owner, wallet, recipient, sellAmount, quote } = await issued();
    service.db
      .update(issuedUserOps)
      .set({ expiresAt: Math.floor(Date.now() / 1000) - 1 })
      .where(eq(issuedUserOps.userOpHash, quote.userOpHash))
      .run();
    const settled = await service.post("/wallet/swap/settle", await settleBody(quote, owner));
    expectRefusal(settled, 400, "validation_error", "userOp.paymasterData");
    expect(settled.body.message).toMatch(/expired, call verify again/);
    await nothingMoved(wallet, recipient, sellAmount);
  });

  const rewrites: [string, (order: SwapOrder) => SwapOrder][] = [
    ["another recipient", (order) => ({ ...order, recipient: randomAddress() })],
    ["a lower minimum", (order) => ({ ...order, minBuyAmount: 1n })],
  ];
  for (const [name, rewrite] of rewrites) {
    test(`a settle body rewritten to ${name} (signed by the owner): 400 naming userOp.callData, nothing sent`, async () => {
      const { t, owner, wallet, recipient, sellAmount, quote } = await issued();
      const context = JSON.parse((await service.services.wallets.store.find(quote.userOpHash))?.context ?? "{}");
      const order: SwapOrder = {
        sellToken: t.m,
        buyToken: t.dai,
        sellAmount,
        minBuyAmount: BigInt(quote.minBuyAmount),
        recipient: recipient as Address,
        fee: BigInt(quote.feeAmount),
      };
      const callData = encodeBatchExecution(
        walletSwapCalls(t.c.info.relayer, rewrite(order), {
          router: context.router,
          path: context.path,
        }),
      );
      expect(callData).not.toBe(quote.userOp.callData);
      const signature = await owner.signMessage({ message: { raw: quote.userOpHash } });
      const rewritten = { userOp: { ...quote.userOp, callData, signature }, signature };
      const settled = await service.post("/wallet/swap/settle", rewritten);
      expectRefusal(settled, 400, "validation_error", "userOp.callData");
      await nothingMoved(wallet, recipient, sellAmount);
      // The honest body still settles: the refusal left the issue untouched.
      const honest = await service.post("/wallet/swap/settle", await settleBody(quote, owner));
      expect(honest.status).toBe(200);
      expect(honest.body.swap.recipient).toBe(recipient);
    });
  }

  test("a signature by another key: 400, nothing sent", async () => {
    const { wallet, recipient, sellAmount, quote } = await issued();
    const stranger = (await deployFundedWallet(network, 0n)).owner as PrivateKeyAccount;
    expectRefusal(
      await service.post("/wallet/swap/settle", await settleBody(quote, stranger)),
      400,
      "validation_error",
      "signature",
    );
    await nothingMoved(wallet, recipient, sellAmount);
  });

  test("bad orders are 400 validation_error naming the field, nothing issued", async () => {
    const t = swapTokensOf(network);
    const sellAmount = 10n * t.unit;
    const { wallet } = await walletHolding(network, t.m, sellAmount);
    const order = { sellToken: t.m, buyToken: t.dai, sellAmount };
    const cases: [unknown, string][] = [
      // W is not a token of the service's config: no fee can be taken in it.
      [verifyBody(network, wallet, { ...order, sellToken: t.w }), "swap.sellToken"],
      [verifyBody(network, wallet, { ...order, buyToken: t.m }), "swap.buyToken"],
      [verifyBody(network, wallet, { ...order, sellAmount: 0n }), "swap.sellAmount"],
      [verifyBody(network, wallet, { ...order, slippageBps: 501 }), "swap.slippageBps"],
      [verifyBody(network, wallet, { ...order, slippageBps: 10, minBuyAmount: 1n }), "swap.slippageBps"],
      [verifyBody(network, wallet, { ...order, recipient: t.c.info.relayer }), "swap.recipient"],
      [verifyBody(network, wallet, { ...order, sellAmount: sellAmount + 1n }), "swap.sellAmount"],
      [verifyBody(network, randomAddress(), order), "walletAddress"],
      [
        { ...verifyBody(network, wallet, order), paymentRequirements: { network: "solana" } },
        "paymentRequirements.network",
      ],
    ];
    for (const [body, field] of cases) {
      expectRefusal(await service.post("/wallet/swap/verify", body), 400, "validation_error", field);
    }
    expect(await service.services.wallets.store.recentIssued(network, wallet, "swap", 0)).toEqual([]);
    expect(await tokenBalance(network, t.m, wallet)).toBe(sellAmount);
  });
});
