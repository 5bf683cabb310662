import { erc20Abi, factoryAbi } from "@relay402/client/wire/abis";
import { type Address, toHex } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import type { NetworkName } from "../../scripts/devnet/start";
import { chainOf, freshPayer, randomAddress, tokenBalance } from "./chain";

/**
 * A wallet from the project's factory, owned by a fresh key (or `owner`, for several wallets of one owner), holding
 * `tokens` of the network's test token and no gas.
 */
export async function deployFundedWallet(
  network: NetworkName,
  tokens: bigint,
  owner: PrivateKeyAccount = privateKeyToAccount(generatePrivateKey()),
): Promise<{ owner: PrivateKeyAccount; wallet: Address }> {
  const c = chainOf(network);
  const salt = toHex(crypto.getRandomValues(new Uint8Array(32)));
  const deployer = c.walletFor((await freshPayer(network, { tokens: 0n })).key);
  const wallet = await c.public.readContract({
    address: c.info.factory,
    abi: factoryAbi,
    functionName: "getAddress",
    args: [owner.address, salt],
  });
  await c.public.waitForTransactionReceipt({
    hash: await deployer.writeContract({
      address: c.info.factory,
      abi: factoryAbi,
      functionName: "createAccount",
      args: [owner.address, salt],
    }),
    pollingInterval: 50,
  });
  if (tokens > 0n) {
    await c.public.waitForTransactionReceipt({
      hash: await deployer.writeContract({
        address: c.token.address,
        abi: erc20Abi,
        functionName: "mint",
        args: [wallet, tokens],
      }),
      pollingInterval: 50,
    });
  }
  return { owner, wallet };
}

/**
 * The wallet spends its whole token balance (anvil impersonation stands for the owner's own UserOp): run between a
 * settle's checks and its UserOp's execution, the UserOp reverts on-chain.
 */
export async function drainWallet(network: NetworkName, wallet: Address) {
  const c = chainOf(network);
  const balance = await tokenBalance(network, c.token.address, wallet);
  await c.test.impersonateAccount({ address: wallet });
  await c.test.setBalance({ address: wallet, value: 10n ** 18n });
  try {
    await c.public.waitForTransactionReceipt({
      hash: await c.walletFor(generatePrivateKey()).writeContract({
        account: wallet,
        address: c.token.address,
        abi: erc20Abi,
        functionName: "transfer",
        args: [randomAddress(), balance],
      }),
      pollingInterval: 50,
    });
  } finally {
    await c.test.stopImpersonatingAccount({ address: wallet });
    await c.test.setBalance({ address: wallet, value: 0n });
  }
}
