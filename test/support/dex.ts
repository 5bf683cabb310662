import { erc20Abi } from "@relay402/client/wire/abis";
import { quoterV2Abi, swapRouter02Abi, v2RouterAbi } from "@relay402/client/wire/swap/abis";
import { encodePath, type Hop } from "@relay402/client/wire/swap/path";
import { type Address, type Hex, maxUint256 } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { NetworkName } from "../../scripts/devnet/start";
import { parseSwapAuthorization } from "../../src/swap/swap-authorization";
import { chainOf, freshPayer, tokenBalance } from "./chain";

/** A devnet network's DEX and the tokens the swap tests trade: the payment token M, wrapped native W and DAI. */
export function swapTokensOf(network: NetworkName) {
  const c = chainOf(network);
  const dex = c.info.dex;
  const dai = c.info.tokens.DAI?.address;
  if (!dex || !dai) throw new Error(`the ${network} devnet has no DEX`);
  return { c, dex, m: c.token.address, dai, w: dex.wrappedNative, unit: 10n ** BigInt(c.token.decimals) };
}

/**
 * A whale holding 100,000 M that moves the V3 M/W pool of fee tier `fee` (the best M → W route) and puts it back.
 * The other swap test files expect the devnet's seeded prices: every test that calls `buy` calls `restore` in a
 * `finally`.
 */
export async function v3Whale(network: NetworkName, fee: number) {
  const t = swapTokensOf(network);
  const whale = await freshPayer(network, { tokens: 100_000n * t.unit });
  const wallet = t.c.walletFor(whale.key);
  const succeeded = async (hash: Hex) =>
    (await t.c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status === "success";
  for (const token of [t.m, t.w]) {
    const approved = await wallet.writeContract({
      address: token,
      abi: erc20Abi,
      functionName: "approve",
      args: [t.dex.v3.router, maxUint256],
    });
    if (!(await succeeded(approved))) throw new Error("the whale's approve reverted");
  }
  const trade = (tokenIn: Address, tokenOut: Address, amountIn: bigint, tip?: bigint) =>
    wallet.writeContract({
      address: t.dex.v3.router,
      abi: swapRouter02Abi,
      functionName: "exactInput",
      args: [
        {
          path: encodePath("v3", [{ tokenIn, tokenOut, fee }]),
          recipient: whale.address,
          amountIn,
          amountOutMinimum: 0n,
        },
      ],
      // A fixed gas limit: an estimate can run short when the block also holds transactions still pending (the pool
      // crosses more ticks), and a restore out of gas leaves the pool moved for every test after this one.
      gas: 1_000_000n,
      // A tip outbids a transaction waiting in the pool into the same block.
      ...(tip ? { maxPriorityFeePerGas: tip, maxFeePerGas: tip * 2n } : {}),
    });
  return {
    address: whale.address,
    /** Sells `amountIn` M for W; the hash, mined or (with automine off) waiting in the pool. */
    buy: (amountIn: bigint, tip?: bigint) => trade(t.m, t.w, amountIn, tip),
    /** Sells back the W it holds; a sale that reverts is tried again (twice), so the pool is never left moved. */
    async restore() {
      for (let attempt = 0; attempt < 3; attempt++) {
        const bought = await tokenBalance(network, t.w, whale.address);
        if (bought === 0n) return;
        if (await succeeded(await trade(t.w, t.m, bought))) return;
      }
      throw new Error("the whale's W could not be sold back: the pool stays moved");
    },
  };
}

/** What `amountIn` buys now through the route, as the router's own quoting says. */
export async function routerQuote(
  network: NetworkName,
  kind: "v2" | "v3",
  hops: Hop[],
  amountIn: bigint,
): Promise<bigint> {
  const { c, dex } = swapTokensOf(network);
  if (kind === "v2") {
    const amounts = await c.public.readContract({
      address: dex.v2.router,
      abi: v2RouterAbi,
      functionName: "getAmountsOut",
      args: [amountIn, [hops[0]?.tokenIn as Address, ...hops.map((hop) => hop.tokenOut)]],
    });
    return amounts.at(-1) ?? 0n;
  }
  const { result } = await c.public.simulateContract({
    address: dex.v3.quoter,
    abi: quoterV2Abi,
    functionName: "quoteExactInput",
    args: [encodePath("v3", hops), amountIn],
  });
  return result[0];
}

/**
 * The /swap/quote body of an EOA's swap of `sellAmount` M into W (the V3 route the devnet seeds) for `recipient`;
 * `extra` adds fields such as slippageBps.
 */
export const mToWQuoteBody = (
  network: NetworkName,
  from: Address,
  recipient: Address,
  sellAmount: bigint,
  extra: Record<string, unknown> = {},
) => {
  const t = swapTokensOf(network);
  return {
    network,
    sellToken: t.m,
    buyToken: t.w,
    sellAmount: sellAmount.toString(),
    mode: "eoa",
    from,
    recipient,
    ...extra,
  };
};

/**
 * A /swap/quote answer's swap signed by `key` as a client would: `message` (the quote's own unless given, e.g. a
 * changed copy) over the quote's typed data, in a /swap/settle body, with the authorization as the service parses it.
 */
export async function signQuotedSwap(
  network: NetworkName,
  key: Hex,
  quote: any,
  message: Record<string, unknown> = quote.typedData.message,
) {
  const { domain, types, primaryType } = quote.typedData;
  const signature = await privateKeyToAccount(key).signTypedData({ domain, types, primaryType, message });
  const body = {
    swapPayload: { authorization: message, signature, path: quote.path },
    swapRequirements: { network, relayerContract: quote.relayerContract },
  };
  return { body, ...parseSwapAuthorization(body.swapPayload as never) };
}
