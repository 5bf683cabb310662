import { erc20Abi } from "@relay402/client/wire/abis";
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  type Hex,
  http,
  parseEther,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { devnetChain } from "../../scripts/devnet/chain";
import type { NetworkName } from "../../scripts/devnet/start";
import { getTestDevnet } from "./devnet";

export const NETWORK_NAMES: NetworkName[] = ["bsc", "base"];

export function chainOf(network: NetworkName) {
  const info = getTestDevnet().devnet.manifest.networks[network];
  const chain = devnetChain(info.chainId, network, info.rpcUrl);
  const transport = http(info.rpcUrl);
  return {
    info,
    chain,
    token: Object.values(info.tokens)[0] as { address: Address; decimals: number; eip3009: boolean },
    // Receipts are polled for every 50 ms (viem would wait its default 4 s between polls on a devnet chain).
    public: createPublicClient({ chain, transport, pollingInterval: 50 }),
    test: createTestClient({ chain, transport, mode: "anvil" }),
    walletFor: (key: Hex) => createWalletClient({ chain, transport, account: privateKeyToAccount(key) }),
  };
}

/**
 * A fresh payer per test: its own key (so tests never share nonces or balances), gas, and tokens minted on
 * `network`. This is how test files stay independent on one shared devnet.
 */
export async function freshPayer(network: NetworkName, options: { tokens?: bigint; gas?: boolean } = {}) {
  const c = chainOf(network);
  const key = generatePrivateKey();
  const account = privateKeyToAccount(key);
  const amount = options.tokens ?? 1000n * 10n ** BigInt(c.token.decimals);
  await c.test.setBalance({ address: account.address, value: options.gas === false ? 0n : parseEther("10") });
  if (amount > 0n) {
    // The test tokens' mint is public; the payer mints to itself, so parallel tests never share a sender nonce.
    const hash = await c.walletFor(key).writeContract({
      address: c.token.address,
      abi: erc20Abi,
      functionName: "mint",
      args: [account.address, amount],
    });
    await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  }
  return { key, account, address: account.address };
}

export async function tokenBalance(network: NetworkName, token: Address, holder: Address): Promise<bigint> {
  return chainOf(network).public.readContract({
    address: token,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [holder],
  });
}

export async function approveRelayer(network: NetworkName, key: Hex, amount: bigint, token?: Address): Promise<void> {
  const c = chainOf(network);
  const hash = await c.walletFor(key).writeContract({
    address: token ?? c.token.address,
    abi: erc20Abi,
    functionName: "approve",
    args: [c.info.relayer, amount],
  });
  await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

/** A new address nobody holds a key of, to receive payments in tests. */
export function randomAddress(): Address {
  return privateKeyToAccount(generatePrivateKey()).address;
}

/**
 * Runs `run` with `network`'s blocks stopped (no automine: what is sent waits in the pool until `run` mines), and
 * starts them again however it ends, so that no other test finds the chain stopped.
 */
export async function withBlocksStopped<T>(network: NetworkName, run: () => Promise<T>): Promise<T> {
  const c = chainOf(network);
  await c.test.setAutomine(false);
  try {
    return await run();
  } finally {
    await c.test.setAutomine(true);
  }
}

/**
 * Whether a transaction to `to` waits in the node's pool (anvil's txpool_content): with blocks stopped, the way a
 * test knows the service (or its bundler) has sent its own transaction, whatever else another test left there.
 */
export async function pendingTransactionTo(network: NetworkName, to: Address): Promise<boolean> {
  const content = (await chainOf(network).public.request({ method: "txpool_content" } as never)) as {
    pending: Record<string, Record<string, { to?: string | null }>>;
  };
  return Object.values(content.pending).some((byNonce) =>
    Object.values(byNonce).some((tx) => tx.to?.toLowerCase() === to.toLowerCase()),
  );
}
