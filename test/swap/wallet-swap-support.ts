// What the smart-wallet swap tests share (wallet-swap.test.ts, wallet-swap-refusals.test.ts): wallets holding a
// token, the verify body, and balance checks.
import { expect } from "bun:test";
import { erc20Abi } from "@relay402/client/wire/abis";
import type { Address, Hex } from "viem";
import type { NetworkName } from "../../scripts/devnet/start";
import { chainOf, freshPayer, tokenBalance } from "../support/chain";
import { swapTokensOf } from "../support/dex";
import { deployFundedWallet } from "../support/wallet";

export const mined = async (network: NetworkName, hash: Hex) => {
  const receipt = await chainOf(network).public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  expect(receipt.status).toBe("success");
};

/** A factory wallet holding `amount` of `token` (M is minted by deployFundedWallet; DAI's mint is public too). */
export async function walletHolding(network: NetworkName, token: Address, amount: bigint) {
  const t = swapTokensOf(network);
  if (token === t.m) return deployFundedWallet(network, amount);
  const funded = await deployFundedWallet(network, 0n);
  const minter = await freshPayer(network, { tokens: 0n });
  await mined(
    network,
    await t.c
      .walletFor(minter.key)
      .writeContract({ address: token, abi: erc20Abi, functionName: "mint", args: [funded.wallet, amount] }),
  );
  return funded;
}

export const verifyBody = (
  network: NetworkName,
  wallet: Address,
  swap: {
    sellToken: Address;
    buyToken: Address;
    sellAmount: bigint;
    slippageBps?: number;
    minBuyAmount?: bigint;
    recipient?: Address;
  },
) => ({
  walletAddress: wallet,
  swap: {
    sellToken: swap.sellToken,
    buyToken: swap.buyToken,
    sellAmount: swap.sellAmount.toString(),
    ...(swap.slippageBps !== undefined ? { slippageBps: swap.slippageBps } : {}),
    ...(swap.minBuyAmount !== undefined ? { minBuyAmount: swap.minBuyAmount.toString() } : {}),
    ...(swap.recipient ? { recipient: swap.recipient } : {}),
  },
  paymentRequirements: { network },
});

export const balances = async (network: NetworkName, holders: Record<string, [Address, Address]>) =>
  Object.fromEntries(
    await Promise.all(
      Object.entries(holders).map(async ([name, [token, holder]]) => [
        name,
        await tokenBalance(network, token, holder),
      ]),
    ),
  ) as Record<string, bigint>;

export const relayerHoldsNothing = async (network: NetworkName) => {
  const t = swapTokensOf(network);
  for (const token of [t.m, t.w, t.dai]) expect(await tokenBalance(network, token, t.c.info.relayer)).toBe(0n);
};
