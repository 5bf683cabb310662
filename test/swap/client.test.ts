// @relay402/client's swap flows end to end over HTTP on the test devnet: an EOA swap and a smart-wallet swap with
// exact balances, and a proxy in front of the real service (a man in the middle, or a dishonest service) that
// rewrites the answer to pay someone else, accept less or sell more: the client refuses before anything is
// signed or approved, and nothing moves on chain. The chain's balances judge.
import { afterAll, describe, expect, test } from "bun:test";
import {
  createRelay402Client,
  decodeBatch,
  expectedSwapFee,
  getNetworkConfig,
  quoteSwap,
  Relay402ClientError,
  type SignerClient,
  settleSwap,
  swap,
  swapFromWallet,
  tokenOf,
} from "@relay402/client";
import { erc20Abi } from "@relay402/client/wire/abis";
import { encodeBatchExecution } from "@relay402/client/wire/execution";
import { relayerSwapAbi } from "@relay402/client/wire/swap/abis";
import { fromRpcUserOp, type RpcUserOp, userOpHash } from "@relay402/client/wire/user-operation";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  decodeFunctionData,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  type PublicClient,
} from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import type { NetworkName } from "../../scripts/devnet/start";
import type { SwapOrder } from "../../src/swap/swap-authorization";
import { chainOf, freshPayer, randomAddress, tokenBalance } from "../support/chain";
import { swapTokensOf } from "../support/dex";
import { trackServices } from "../support/service";
import { deployFundedWallet } from "../support/wallet";

const services = trackServices();
const service = services.start();
const server = Bun.serve({ port: 0, fetch: (request) => service.app.handle(request) });

/** How the proxy rewrites the service's answers; undefined forwards them unchanged. */
let rewrite: ((path: string, answer: any) => any) | undefined;
const proxy = Bun.serve({
  port: 0,
  async fetch(request) {
    const url = new URL(request.url);
    const forwarded = await fetch(`${server.url.origin}${url.pathname}${url.search}`, {
      method: request.method,
      headers: request.headers,
      body: request.method === "GET" ? undefined : await request.text(),
    });
    if (!rewrite || forwarded.status !== 200 || request.method !== "POST") return forwarded;
    return Response.json(rewrite(url.pathname, await forwarded.json()));
  },
});
afterAll(() => {
  proxy.stop(true);
  server.stop(true);
  services.stopAll();
});

const direct = createRelay402Client({ url: server.url.origin });
const throughProxy = createRelay402Client({ url: proxy.url.origin });

/** The key as viem clients, counting every signature it makes. */
function clientsOf(network: NetworkName, account: PrivateKeyAccount) {
  const c = chainOf(network);
  const client = createWalletClient({ chain: c.chain, transport: http(c.info.rpcUrl), account });
  const counted = { signer: client as SignerClient, signatures: 0 };
  const signTypedData = client.signTypedData.bind(client);
  const signMessage = client.signMessage.bind(client);
  counted.signer = {
    ...client,
    signTypedData: ((args: Parameters<typeof client.signTypedData>[0]) => {
      counted.signatures++;
      return signTypedData(args);
    }) as typeof client.signTypedData,
    signMessage: (args: Parameters<typeof client.signMessage>[0]) => {
      counted.signatures++;
      return signMessage(args);
    },
  } as SignerClient;
  const publicClient = createPublicClient({ chain: c.chain, transport: http(c.info.rpcUrl) }) as PublicClient;
  return Object.assign(counted, { publicClient });
}

const allowance = (network: NetworkName, token: Address, owner: Address) =>
  chainOf(network).public.readContract({
    address: token,
    abi: erc20Abi,
    functionName: "allowance",
    args: [owner, chainOf(network).info.relayer],
  });

describe("EOA swaps through @relay402/client", () => {
  for (const network of ["bsc", "base"] as const) {
    test(`${network}: swap 40 M for W to a fresh recipient: the payer loses exactly sellAmount, the fee recipient gets the rule's fee, the recipient at least the minimum`, async () => {
      const t = swapTokensOf(network);
      const payer = await freshPayer(network);
      const counted = clientsOf(network, payer.account);
      const { signer, publicClient } = counted;
      const recipient = randomAddress();
      const sellAmount = 40n * t.unit;
      const config = await getNetworkConfig(direct, network);
      const fee = expectedSwapFee(tokenOf(config, t.m).fees, sellAmount);
      const before = await Promise.all([
        tokenBalance(network, t.m, payer.address),
        tokenBalance(network, t.m, t.c.info.feeRecipient),
      ]);

      const result = await swap(direct, signer, {
        publicClient,
        network,
        sellToken: t.m,
        buyToken: t.w,
        sellAmount,
        recipient,
        slippageBps: 100,
      });
      expect(result.approval).toBeDefined();
      expect(counted.signatures).toBe(1);
      expect(result.settlement).toMatchObject({
        success: true,
        network,
        swap: { sellAmount: sellAmount.toString(), fee: fee.toString(), recipient: getAddress(recipient) },
      });
      const received = await tokenBalance(network, t.w, recipient);
      expect(received).toBe(BigInt(result.settlement.swap.buyAmount));
      expect(received).toBeGreaterThanOrEqual(BigInt(result.body.swapPayload.authorization.minBuyAmount));
      expect(BigInt(result.body.swapPayload.authorization.minBuyAmount)).toBe(
        (BigInt(result.quote.buyAmount) * 9_900n) / 10_000n,
      );
      expect(await tokenBalance(network, t.m, payer.address)).toBe(before[0]! - sellAmount);
      expect(await tokenBalance(network, t.m, t.c.info.feeRecipient)).toBe(before[1]! + fee);
      expect(await tokenBalance(network, t.m, t.c.info.relayer)).toBe(0n);

      // Settled again: the same transaction, nothing moves twice.
      const again = await settleSwap(direct, result.body);
      expect(again.transaction).toBe(result.settlement.transaction);
      expect(await tokenBalance(network, t.m, payer.address)).toBe(before[0]! - sellAmount);
      expect(await tokenBalance(network, t.w, recipient)).toBe(received);
    });
  }

  test("a rewritten quote (recipient, minimum, amount, a lowered price under an own minimum) is refused before the payer signs or approves: nothing moves", async () => {
    const network = "bsc";
    const t = swapTokensOf(network);
    const payer = await freshPayer(network);
    const counted = clientsOf(network, payer.account);
    const { signer, publicClient } = counted;
    const attacker = randomAddress();
    const sellAmount = 20n * t.unit;
    const before = await tokenBalance(network, t.m, payer.address);
    const attacks: [string, (quote: any) => void][] = [
      ["recipient", (quote) => (quote.typedData.message.recipient = attacker)],
      // The minimum lowered both in the message and in the quote's own figures: the floor is the caller's slippage.
      [
        "minBuyAmount",
        (quote) => {
          quote.minBuyAmount = quote.typedData.message.minBuyAmount = "1";
        },
      ],
      [
        "sellAmount",
        (quote) => {
          quote.sellAmount = quote.typedData.message.sellAmount = (sellAmount * 10n).toString();
        },
      ],
    ];
    try {
      for (const [field, change] of attacks) {
        rewrite = (path, answer) => {
          if (path === "/swap/quote") change(answer);
          return answer;
        };
        const refused = await swap(throughProxy, signer, {
          publicClient,
          network,
          sellToken: t.m,
          buyToken: t.w,
          sellAmount,
          recipient: payer.address,
        }).catch((error) => error);
        expect(refused).toBeInstanceOf(Relay402ClientError);
        expect(refused).toMatchObject({
          code: "unexpected_response",
          details: { field: `typedData.message.${field}` },
        });
      }
      // A service that lowers its quoted price and the minimum with it passes a slippage floor (taken from the
      // quote) but not the caller's own minimum.
      const honest = await quoteSwap(direct, { network, sellToken: t.m, buyToken: t.w, sellAmount });
      rewrite = (path, answer) => {
        if (path !== "/swap/quote") return answer;
        answer.buyAmount = ((BigInt(answer.buyAmount) * 9n) / 10n).toString();
        answer.minBuyAmount = answer.typedData.message.minBuyAmount = (
          (BigInt(answer.buyAmount) * 995n) /
          1000n
        ).toString();
        return answer;
      };
      const underpriced = await swap(throughProxy, signer, {
        publicClient,
        network,
        sellToken: t.m,
        buyToken: t.w,
        sellAmount,
        minBuyAmount: BigInt(honest.minBuyAmount),
      }).catch((error) => error);
      expect(underpriced).toMatchObject({
        code: "unexpected_response",
        details: { field: "typedData.message.minBuyAmount" },
      });
    } finally {
      rewrite = undefined;
    }
    expect(counted.signatures).toBe(0);
    expect(await allowance(network, t.m, payer.address)).toBe(0n);
    expect(await tokenBalance(network, t.m, payer.address)).toBe(before);
    expect(await tokenBalance(network, t.w, attacker)).toBe(0n);
    expect(await chainOf(network).public.getTransactionCount({ address: payer.address })).toBe(1); // its own mint
  });
});

/**
 * The proxy's rewrite of a /wallet/swap/verify answer: the swapBatch order changed (and the approve with the
 * amount), the userOpHash recomputed, so that the only thing wrong is the swap itself.
 */
const rewriteWalletSwap =
  (network: NetworkName, change: (order: SwapOrder) => SwapOrder) => (path: string, answer: any) => {
    if (path !== "/wallet/swap/verify" || !answer.isValid) return answer;
    const c = chainOf(network);
    const userOp = answer.userOp as RpcUserOp;
    const [approve, swapCall] = decodeBatch(userOp.callData)!;
    const { args } = decodeFunctionData({ abi: relayerSwapAbi, data: swapCall!.data });
    const order = change(args[0] as SwapOrder);
    const route = args[1] as { router: Address; path: Hex };
    approve!.data = encodeFunctionData({
      abi: erc20Abi,
      functionName: "approve",
      args: [c.info.relayer, order.sellAmount],
    });
    swapCall!.data = encodeFunctionData({ abi: relayerSwapAbi, functionName: "swapBatch", args: [order, route] });
    userOp.callData = encodeBatchExecution([approve!, swapCall!]);
    answer.userOpHash = userOpHash(fromRpcUserOp(userOp), c.info.chainId, c.info.entryPoint);
    return answer;
  };

describe("smart-wallet swaps through @relay402/client", () => {
  for (const network of ["bsc", "base"] as const) {
    test(`${network}: a wallet swaps 30 M for DAI (to itself, then to a fresh recipient): the wallet loses exactly sellAmount, the fee recipient gets the rule's fee, the output at least the minimum`, async () => {
      const t = swapTokensOf(network);
      const { owner, wallet } = await deployFundedWallet(network, 100n * t.unit);
      const counted = clientsOf(network, owner);
      const sellAmount = 30n * t.unit;
      const config = await getNetworkConfig(direct, network);
      const fee = expectedSwapFee(tokenOf(config, t.m).fees, sellAmount);
      for (const recipient of [undefined, randomAddress()]) {
        const receiver = recipient ?? wallet;
        const before = await Promise.all([
          tokenBalance(network, t.m, wallet),
          tokenBalance(network, t.m, t.c.info.feeRecipient),
          tokenBalance(network, t.dai, receiver),
        ]);
        const signaturesBefore = counted.signatures;
        const result = await swapFromWallet(direct, counted.signer, {
          network,
          wallet,
          sellToken: t.m,
          buyToken: t.dai,
          sellAmount,
          ...(recipient ? { recipient } : {}),
        });
        expect(counted.signatures).toBe(signaturesBefore + 1);
        expect(result.verify.feeAmount).toBe(fee.toString());
        expect(result.signed.order).toMatchObject({
          sellAmount,
          fee,
          minBuyAmount: BigInt(result.verify.minBuyAmount),
        });
        expect(result.settlement).toMatchObject({
          success: true,
          swap: { sellAmount: sellAmount.toString(), fee: fee.toString() },
        });
        expect(result.settlement.swap.recipient.toLowerCase()).toBe(receiver.toLowerCase());
        const received = (await tokenBalance(network, t.dai, receiver)) - before[2]!;
        expect(received).toBe(BigInt(result.settlement.swap.buyAmount));
        expect(received).toBeGreaterThanOrEqual(BigInt(result.verify.minBuyAmount));
        // minBuyAmount = floor(buyAmount × (10000 − 50) / 10000), the default slippage.
        expect(BigInt(result.verify.minBuyAmount)).toBe((BigInt(result.verify.buyAmount) * 9_950n) / 10_000n);
        expect(await tokenBalance(network, t.m, wallet)).toBe(before[0]! - sellAmount);
        expect(await tokenBalance(network, t.m, t.c.info.feeRecipient)).toBe(before[1]! + fee);
        expect(await tokenBalance(network, t.m, t.c.info.relayer)).toBe(0n);
        expect(await tokenBalance(network, t.dai, t.c.info.relayer)).toBe(0n);
      }
    });
  }

  test("a rewritten wallet swap (recipient, minimum, amount, a lowered price under an own minimum) is refused before the owner signs: nothing moves", async () => {
    const network = "bsc";
    const t = swapTokensOf(network);
    const { owner, wallet } = await deployFundedWallet(network, 100n * t.unit);
    const counted = clientsOf(network, owner);
    const attacker = randomAddress();
    const sellAmount = 20n * t.unit;
    const order = { network, wallet, sellToken: t.m, buyToken: t.dai, sellAmount } as const;
    const attacks: [string, (order: SwapOrder) => SwapOrder][] = [
      ["recipient", (o) => ({ ...o, recipient: attacker })],
      ["minBuyAmount", (o) => ({ ...o, minBuyAmount: 1n })],
      ["sellAmount", (o) => ({ ...o, sellAmount: 100n * t.unit })],
    ];
    try {
      for (const [field, change] of attacks) {
        rewrite = rewriteWalletSwap(network, change);
        const refused = await swapFromWallet(throughProxy, counted.signer, order).catch((error) => error);
        expect(refused).toBeInstanceOf(Relay402ClientError);
        expect(refused).toMatchObject({ code: "unexpected_response", details: { field: `swap.${field}` } });
      }
      // The caller's own minimum holds even when the answer's quote is lowered with the minimum.
      const honest = await quoteSwap(direct, { network, sellToken: t.m, buyToken: t.dai, sellAmount });
      const lowered = rewriteWalletSwap(network, (o) => ({ ...o, minBuyAmount: (o.minBuyAmount * 9n) / 10n }));
      rewrite = (path, answer) => {
        if (path === "/wallet/swap/verify" && answer.isValid) {
          answer.buyAmount = ((BigInt(answer.buyAmount) * 9n) / 10n).toString();
        }
        return lowered(path, answer);
      };
      const underpriced = await swapFromWallet(throughProxy, counted.signer, {
        ...order,
        minBuyAmount: BigInt(honest.minBuyAmount),
      }).catch((error) => error);
      expect(underpriced).toMatchObject({ code: "unexpected_response", details: { field: "swap.minBuyAmount" } });
    } finally {
      rewrite = undefined;
    }
    expect(counted.signatures).toBe(0);
    expect(await tokenBalance(network, t.m, wallet)).toBe(100n * t.unit);
    expect(await tokenBalance(network, t.dai, wallet)).toBe(0n);
    expect(await tokenBalance(network, t.dai, attacker)).toBe(0n);
  });
});
