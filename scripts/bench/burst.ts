// What the settle bursts of the benchmarks share (bench:x402's 1,000 settles at concurrency 200, bench:instances):
// the load generator's fetch limit, funded payers, 1-s blocks, and how a burst is judged (nonce errors, blocks used).

import { erc20Abi } from "@relay402/client/wire/abis";
import {
  type Address,
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  type Hex,
  http,
} from "viem";
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import type { Outcome } from "./load";

/**
 * The load generator (and any counting proxy) runs in the bench's own process: at concurrency 200, plus the proxied
 * sync sends each held until its block, it exceeds Bun's default of 256 fetches at once, and the bench itself would
 * queue the requests it measures. So the bench runs again with a higher limit (this call then never returns in the
 * first process: it exits with the second one's code); the services keep the default (child.ts does not pass it on).
 */
export async function raiseFetchLimit(limit = 4096): Promise<void> {
  if (process.env.BUN_CONFIG_MAX_HTTP_REQUESTS) return;
  const again = Bun.spawn([process.execPath, ...process.argv.slice(1)], {
    env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: String(limit) },
    stdio: ["inherit", "inherit", "inherit"],
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => again.kill(signal));
  process.exit(await again.exited);
}

/**
 * Funds accounts on a devnet chain (automine): native balance for gas, `tokens` of `token` minted, and, when
 * `approve` is given, that allowance for `spender` (the relayer). Answers the account once every write is mined.
 */
export function tokenFunder(options: { chain: Chain; rpcUrl: string; token: Address; spender: Address }) {
  const { chain, token, spender } = options;
  const transport = http(options.rpcUrl);
  const publicClient = createPublicClient({ chain, transport });
  const testClient = createTestClient({ chain, transport, mode: "anvil" });
  return async (key: Hex, tokens: bigint, approve?: bigint): Promise<PrivateKeyAccount> => {
    const account = privateKeyToAccount(key);
    const wallet = createWalletClient({ chain, transport, account });
    await testClient.setBalance({ address: account.address, value: 10n ** 20n });
    const calls: [string, readonly unknown[]][] = [["mint", [account.address, tokens]]];
    if (approve !== undefined) calls.push(["approve", [spender, approve]]);
    for (const [functionName, args] of calls) {
      const hash = await wallet.writeContract({ address: token, abi: erc20Abi, functionName, args } as never);
      await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 30_000 });
    }
    return account;
  };
}

/** Blocks every `seconds` (anvil interval mining), or automine again with 0. */
export async function setBlockInterval(rpcUrl: string, seconds: number): Promise<void> {
  const testClient = createTestClient({ transport: http(rpcUrl), mode: "anvil" });
  if (seconds > 0) {
    await testClient.setAutomine(false);
    await testClient.setIntervalMining({ interval: seconds });
  } else {
    await testClient.setIntervalMining({ interval: 0 });
    await testClient.setAutomine(true);
  }
}

/** The failures by reason, `reason ×count`, for a bench's progress line. */
export const failureReasons = (outcomes: Outcome[]) => {
  const counts = new Map<string, number>();
  for (const o of outcomes) if (!o.ok) counts.set(o.reason ?? "?", (counts.get(o.reason ?? "?") ?? 0) + 1);
  return [...counts].map(([reason, n]) => `${reason} ×${n}`).join(", ");
};

/** The failures whose reason names a nonce: what several senders of one key would cause. */
export const nonceErrors = (outcomes: Outcome[]) =>
  outcomes.filter((o) => !o.ok && /nonce/i.test(o.reason ?? "")).length;

/** Settlements per block, in block order: how the sending path spread a burst over the blocks (receipts, 50 at once). */
export async function settlementsPerBlock(rpcUrl: string, outcomes: Outcome[]): Promise<number[]> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  const blocks = new Map<bigint, number>();
  const hashes = outcomes.flatMap((o) => (o.ok && o.transaction ? [o.transaction as Hex] : []));
  for (let i = 0; i < hashes.length; i += 50)
    for (const receipt of await Promise.all(
      hashes.slice(i, i + 50).map((hash) => client.getTransactionReceipt({ hash })),
    ))
      blocks.set(receipt.blockNumber, (blocks.get(receipt.blockNumber) ?? 0) + 1);
  return [...blocks].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, n]) => n);
}
