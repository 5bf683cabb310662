import { afterAll, describe, expect, test } from "bun:test";
import { erc20Abi, relayerAbi } from "@relay402/client/wire/abis";
import { relayerSwapAbi, v2RouterAbi } from "@relay402/client/wire/swap/abis";
import { encodePath } from "@relay402/client/wire/swap/path";
import { swapAuthorizationHash } from "@relay402/client/wire/swap/typed-data";
import { type Address, type Hex, parseAbi, parseEventLogs } from "viem";
import { forgeArtifact } from "../../scripts/devnet/artifacts";
import type { NetworkName } from "../../scripts/devnet/start";
import type { SwapRoute } from "../../src/swap/swap-authorization";
import { approveRelayer, chainOf, freshPayer, NETWORK_NAMES, randomAddress, tokenBalance } from "../support/chain";
import { signQuotedSwap, swapTokensOf } from "../support/dex";
import { startTestService } from "../support/service";

const service = startTestService();
afterAll(() => service.stop());

type Payer = Awaited<ReturnType<typeof freshPayer>>;
type Message = Record<string, unknown>;

/** The quote's typed data (M -> DAI, 10 M) signed as it comes, and signed again changed (same nonce). */
async function signedSwaps(
  network: NetworkName,
  payer: Payer,
  change: (message: Message) => Message = (m) => m,
  slippageBps = 50,
) {
  const t = swapTokensOf(network);
  const sellAmount = 10n * t.unit;
  await approveRelayer(network, payer.key, 2n * sellAmount);
  const response = await service.post("/swap/quote", {
    network,
    sellToken: t.m,
    buyToken: t.dai,
    sellAmount: sellAmount.toString(),
    mode: "eoa",
    from: payer.address,
    recipient: randomAddress(),
    slippageBps,
  });
  expect(response.status).toBe(200);
  const quote = response.body;
  const { message } = quote.typedData;
  const sign = (signed: Message) => signQuotedSwap(network, payer.key, quote, signed);
  return { t, quote, sellAmount, signed: await sign(message), other: await sign(change(structuredClone(message))) };
}

type Signed = Awaited<ReturnType<typeof signedSwaps>>["signed"];

/** Submits a signed swap straight to the relayer, ahead of anything pending (a higher tip), on `route`. */
function submitDirectly(network: NetworkName, key: Hex, swap: Signed, route: SwapRoute = swap.route) {
  const c = chainOf(network);
  return c.walletFor(key).writeContract({
    address: c.info.relayer,
    abi: relayerSwapAbi,
    functionName: "swapWithAuthorization",
    args: [swap.authorization, swap.signature, route],
    gas: 700_000n,
    maxPriorityFeePerGas: 100n * 10n ** 9n,
    maxFeePerGas: 1000n * 10n ** 9n,
  });
}

/**
 * A route the stranger owns: V2 pools M/X and X/DAI of a token X it deploys (never a connector, so no quote
 * ever goes through it), priced at the quote (`amountIn` M for `buyAmount` X, X for DAI one to one), 10^4 swaps
 * deep.
 */
async function ownRoute(network: NetworkName, key: Hex, amountIn: bigint, buyAmount: bigint): Promise<SwapRoute> {
  const t = swapTokensOf(network);
  const wallet = t.c.walletFor(key);
  const mined = async (hash: Hex) =>
    expect((await t.c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).toBe("success");
  const deployed = await t.c.public.waitForTransactionReceipt({
    hash: await wallet.deployContract({ abi: [], bytecode: forgeArtifact("TestDAI.sol", "TestDAI").bytecode }),
    pollingInterval: 50,
  });
  const x = deployed.contractAddress as Address;
  const depth = 10_000n;
  for (const [token, amount] of [
    [t.m, amountIn * depth],
    [x, 2n * buyAmount * depth],
    [t.dai, buyAmount * depth],
  ] as const) {
    await mined(
      await wallet.writeContract({
        address: token,
        abi: mintAbi,
        functionName: "mint",
        args: [wallet.account.address, amount],
      }),
    );
    await mined(
      await wallet.writeContract({
        address: token,
        abi: erc20Abi,
        functionName: "approve",
        args: [t.dex.v2.router, amount],
      }),
    );
  }
  const deadline = BigInt(Math.floor(Date.now() / 1000) + 600);
  for (const [a, b, amountA, amountB] of [
    [t.m, x, amountIn * depth, buyAmount * depth],
    [x, t.dai, buyAmount * depth, buyAmount * depth],
  ] as const) {
    await mined(
      await wallet.writeContract({
        address: t.dex.v2.router,
        abi: v2RouterAbi,
        functionName: "addLiquidity",
        args: [a, b, amountA, amountB, 0n, 0n, wallet.account.address, deadline],
      }),
    );
  }
  return {
    router: t.dex.v2.router,
    path: encodePath("v2", [
      { tokenIn: t.m, tokenOut: x },
      { tokenIn: x, tokenOut: t.dai },
    ]),
  };
}

const mintAbi = parseAbi(["function mint(address to, uint256 amount)"]);

const nonceUsed = (network: NetworkName, payer: Address, nonce: Hex) =>
  chainOf(network).public.readContract({
    address: chainOf(network).info.relayer,
    abi: relayerAbi,
    functionName: "authorizationState",
    args: [payer, nonce],
  });

/** /swap/settle of `swap`, with `frontRun` sent once the service's own transaction is signed, in the same block. */
async function settleFrontRun(network: NetworkName, swap: Signed, frontRun: () => Promise<Hex>) {
  const c = chainOf(network);
  await c.test.setAutomine(false);
  try {
    const settling = service.post("/swap/settle", swap.body);
    const key = { network, payer: swap.authorization.from, nonce: swap.authorization.nonce };
    for (let i = 0; i < 100 && service.swapStore.find(key)?.status !== "sent"; i++) await Bun.sleep(50);
    expect(service.swapStore.find(key)?.status).toBe("sent");
    await Bun.sleep(200);
    const hash = await frontRun();
    await c.test.mine({ blocks: 1 });
    return { settled: await settling, frontRunHash: hash };
  } finally {
    await c.test.setAutomine(true);
  }
}

describe("a signed swap is bound to its route and judged by its struct hash", () => {
  for (const network of NETWORK_NAMES) {
    test(`${network}: a stranger submitting the victim's swap on another route reverts, the quoted route settles`, async () => {
      const payer = await freshPayer(network);
      // Signed at the highest slippage the service allows: 5 % the stranger could keep.
      const { t, quote, sellAmount, signed } = await signedSwaps(network, payer, undefined, 500);
      const stranger = await freshPayer(network);
      const recipient = signed.authorization.recipient;
      const amountIn = sellAmount - BigInt(quote.fee);
      const own = await ownRoute(network, stranger.key, amountIn, BigInt(quote.buyAmount));
      const tokens = (own.path.slice(2).match(/.{40}/g) ?? []).map((token) => `0x${token}` as Address);
      const paid = await t.c.public.readContract({
        address: t.dex.v2.router,
        abi: v2RouterAbi,
        functionName: "getAmountsOut",
        args: [amountIn, tokens],
      });
      // Through its own pools the stranger would pay the recipient the minimum and keep the rest.
      expect(paid.at(-1)).toBeGreaterThanOrEqual(signed.authorization.minBuyAmount);
      expect(paid.at(-1)).toBeLessThan(BigInt(quote.buyAmount));
      const kind = quote.route[0].kind as "v2" | "v3";
      // The stranger's pools, and the signed path on the other router.
      const others: SwapRoute[] = [
        own,
        { router: kind === "v3" ? t.dex.v2.router : t.dex.v3.router, path: signed.route.path },
      ];
      for (const route of others) {
        const hash = await submitDirectly(network, stranger.key, signed, route);
        const receipt = await t.c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
        expect(receipt.status).toBe("reverted");
      }
      expect(await tokenBalance(network, t.m, payer.address)).toBe(1000n * t.unit);
      expect(await tokenBalance(network, t.dai, recipient)).toBe(0n);
      expect(await nonceUsed(network, payer.address, signed.authorization.nonce)).toBe(false);

      const settled = await service.post("/swap/settle", signed.body);
      expect(settled.status).toBe(200);
      const receipt = await t.c.public.getTransactionReceipt({ hash: settled.body.transaction });
      const [executed] = parseEventLogs({ abi: relayerSwapAbi, eventName: "SwapExecuted", logs: receipt.logs });
      expect(executed?.args.authorizationHash).toBe(swapAuthorizationHash(signed.authorization));
      const received = await tokenBalance(network, t.dai, recipient);
      expect(received).toBe(BigInt(settled.body.swap.buyAmount));
      expect(received).toBeGreaterThanOrEqual(signed.authorization.minBuyAmount);
      expect(await tokenBalance(network, t.m, payer.address)).toBe(1000n * t.unit - sellAmount);
    });

    test(`${network}: the nonce used by a different signed swap (a lower minimum) is a stored nonce_error, never a success`, async () => {
      const payer = await freshPayer(network);
      const { t, sellAmount, signed, other } = await signedSwaps(network, payer, (m) => ({ ...m, minBuyAmount: "1" }));
      // Same tokens, amounts, fee, recipient and route: only the minimum differs.
      expect(other.authorization.nonce).toBe(signed.authorization.nonce);
      const { settled, frontRunHash } = await settleFrontRun(network, signed, () =>
        submitDirectly(network, payer.key, other),
      );
      const receipt = await t.c.public.getTransactionReceipt({ hash: frontRunHash });
      expect(receipt.status).toBe("success");
      const [executed] = parseEventLogs({ abi: relayerSwapAbi, eventName: "SwapExecuted", logs: receipt.logs });
      expect(executed?.args.authorizationHash).toBe(swapAuthorizationHash(other.authorization));
      expect([settled.status, settled.body.code]).toEqual([400, "nonce_error"]);
      const again = await service.post("/swap/settle", signed.body);
      expect([again.status, again.body.code]).toEqual([400, "nonce_error"]);
      // One swap happened, the other's: the payer sold once.
      expect(await tokenBalance(network, t.m, payer.address)).toBe(1000n * t.unit - sellAmount);
    });
  }

  test("base: a body whose path is not the signed routeHash is 400 validation_error naming swapPayload.path, nothing sent", async () => {
    const network = "base";
    const payer = await freshPayer(network);
    const { t, signed } = await signedSwaps(network, payer);
    const path = encodePath("v2", [
      { tokenIn: t.m, tokenOut: t.w },
      { tokenIn: t.w, tokenOut: t.dai },
    ]);
    const body = { ...signed.body, swapPayload: { ...signed.body.swapPayload, path } };
    for (const route of ["/swap/verify", "/swap/settle"]) {
      const answer = await service.post(route, body);
      expect([answer.status, answer.body.code, answer.body.details?.field]).toEqual([
        400,
        "validation_error",
        "swapPayload.path",
      ]);
    }
    expect(await nonceUsed(network, payer.address, signed.authorization.nonce)).toBe(false);
    expect(await tokenBalance(network, t.m, payer.address)).toBe(1000n * t.unit);
  });

  test("base: the very authorization executed by someone else first is a success with that transaction", async () => {
    const network = "base";
    const payer = await freshPayer(network);
    const stranger = await freshPayer(network);
    const { t, sellAmount, signed } = await signedSwaps(network, payer);
    const { settled, frontRunHash } = await settleFrontRun(network, signed, () =>
      submitDirectly(network, stranger.key, signed),
    );
    expect([settled.status, settled.body.message]).toEqual([200, undefined]);
    expect(settled.body.transaction).toBe(frontRunHash);
    const received = await tokenBalance(network, t.dai, signed.authorization.recipient);
    expect(received).toBe(BigInt(settled.body.swap.buyAmount));
    expect(received).toBeGreaterThanOrEqual(signed.authorization.minBuyAmount);
    expect(await tokenBalance(network, t.m, payer.address)).toBe(1000n * t.unit - sellAmount);
    const again = await service.post("/swap/settle", signed.body);
    expect([again.status, again.body.transaction]).toEqual([200, frontRunHash]);
  });
});
