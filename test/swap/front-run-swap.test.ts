import { afterAll, describe, expect, test } from "bun:test";
import { type Address, type Hex, parseEventLogs } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { NetworkName } from "../../scripts/devnet/start";
import { relayerAbi } from "../../src/chain/abis";
import { relayerSwapAbi } from "../../src/swap/abis";
import { encodePath } from "../../src/swap/path";
import { parseSwapAuthorization, type SwapRoute } from "../../src/swap/swap-authorization";
import { swapAuthorizationHash } from "../../src/swap/typed-data";
import { approveRelayer, chainOf, freshPayer, NETWORK_NAMES, randomAddress, tokenBalance } from "../support/chain";
import { startTestService } from "../support/service";

const service = startTestService();
afterAll(() => service.stop());

type Payer = Awaited<ReturnType<typeof freshPayer>>;
type Message = Record<string, unknown>;

function tokensOf(network: NetworkName) {
  const c = chainOf(network);
  const dex = c.info.dex;
  const dai = c.info.tokens.DAI?.address;
  if (!dex || !dai) throw new Error(`the ${network} devnet has no DEX`);
  return { c, dex, m: c.token.address, dai, w: dex.wrappedNative, unit: 10n ** BigInt(c.token.decimals) };
}

/** The quote's typed data (M -> DAI, 10 M) signed as it comes, and signed again changed (same nonce). */
async function signedSwaps(network: NetworkName, payer: Payer, change: (message: Message) => Message = (m) => m) {
  const t = tokensOf(network);
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
  });
  expect(response.status).toBe(200);
  const quote = response.body;
  const { domain, types, primaryType, message } = quote.typedData;
  const sign = async (signed: Message) => {
    const signature = await privateKeyToAccount(payer.key).signTypedData({
      domain,
      types,
      primaryType,
      message: signed,
    });
    const body = {
      swapPayload: { authorization: signed, signature, path: quote.path },
      swapRequirements: { network, relayerContract: quote.relayerContract },
    };
    return { body, ...parseSwapAuthorization(body.swapPayload as never) };
  };
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
      const { t, quote, sellAmount, signed } = await signedSwaps(network, payer);
      const stranger = await freshPayer(network);
      const recipient = signed.authorization.recipient;
      const kind = quote.route[0].kind as "v2" | "v3";
      // The other kind's router through W: a route the stranger picked, not the signed one.
      const others: SwapRoute[] = [
        kind === "v3"
          ? {
              router: t.dex.v2.router,
              path: encodePath("v2", [
                { tokenIn: t.m, tokenOut: t.w },
                { tokenIn: t.w, tokenOut: t.dai },
              ]),
            }
          : {
              router: t.dex.v3.router,
              path: encodePath("v3", [
                { tokenIn: t.m, tokenOut: t.w, fee: 500 },
                { tokenIn: t.w, tokenOut: t.dai, fee: 3000 },
              ]),
            },
        // The signed path on the other router.
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
