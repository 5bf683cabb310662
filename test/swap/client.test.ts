// relay402/client's swap flows end to end over HTTP on the test devnet: an EOA swap and a smart-wallet swap with
// exact balances, and a proxy in front of the real service (a man in the middle, or a dishonest service) that
// rewrites the answer to pay someone else, accept less or sell more: the client refuses before anything is
// signed or approved, and nothing moves on chain. The chain's balances judge.
import { afterAll, describe, expect, test } from "bun:test";
import { type Address, createPublicClient, createWalletClient, http, type PublicClient } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import type { NetworkName } from "../../scripts/devnet/start";
import { erc20Abi } from "../../src/chain/abis";
import {
  createRelay402Client,
  expectedSwapFee,
  getNetworkConfig,
  quoteSwap,
  Relay402ClientError,
  type SignerClient,
  settleSwap,
  swap,
} from "../../src/client";
import { tokenOf } from "../../src/client/get-config";
import { chainOf, freshPayer, randomAddress, tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";

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

function tokensOf(network: NetworkName) {
  const c = chainOf(network);
  const dex = c.info.dex;
  const dai = c.info.tokens.DAI?.address;
  if (!dex || !dai) throw new Error(`the ${network} devnet has no DEX`);
  return { c, m: c.token.address, dai, w: dex.wrappedNative, unit: 10n ** BigInt(c.token.decimals) };
}

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

describe("EOA swaps through relay402/client", () => {
  for (const network of ["bsc", "base"] as const) {
    test(`${network}: swap 40 M for W to a fresh recipient: the payer loses exactly sellAmount, the fee recipient gets the rule's fee, the recipient at least the minimum`, async () => {
      const t = tokensOf(network);
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
        swap: { sellAmount: sellAmount.toString(), fee: fee.toString(), recipient: recipient.toLowerCase() },
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
    const t = tokensOf(network);
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
