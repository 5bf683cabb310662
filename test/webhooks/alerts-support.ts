// The operator's figures moved on the devnet, for the alert tests: an executor's native balance (anvil's
// setBalance, given back afterwards) and the paymaster's EntryPoint deposit (withdrawn by the paymaster's owner,
// deposited again through the EntryPoint). The service reads them from the chain like any other balance.
import { type Address, parseAbi } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devnetKeys } from "../../scripts/devnet/keys";
import type { NetworkName } from "../../scripts/devnet/start";
import { chainOf } from "../support/chain";

const paymasterAbi = parseAbi([
  "function withdrawTo(address withdrawAddress, uint256 amount)",
  "function getDeposit() view returns (uint256)",
]);
const entryPointAbi = parseAbi(["function depositTo(address account) payable"]);

/** The first executor of a network (the devnet's keys, as the service's config lists them). */
export const firstExecutor = (): Address => privateKeyToAccount(devnetKeys.executors[0] as `0x${string}`).address;

export const nativeBalanceOf = (network: NetworkName, address: Address) =>
  chainOf(network).public.getBalance({ address });

export async function setNativeBalance(network: NetworkName, address: Address, value: bigint) {
  await chainOf(network).test.setBalance({ address, value });
}

/**
 * The first executor spends its coins down to about `left` in a transaction of its own, so that, as on a real
 * chain, every block before that transaction's reads the old balance and every block from it the new one (anvil's
 * setBalance changes the current block's state in place: two readings of one block could disagree).
 */
export async function drainFirstExecutor(network: NetworkName, left: bigint) {
  const c = chainOf(network);
  const executor = firstExecutor();
  const balance = await c.public.getBalance({ address: executor });
  const gasPrice = 10n * 10n ** 9n;
  const hash = await c.walletFor(devnetKeys.executors[0] as `0x${string}`).sendTransaction({
    to: "0x000000000000000000000000000000000000dEaD",
    value: balance - left - 21_000n * gasPrice,
    gas: 21_000n,
    maxFeePerGas: gasPrice,
    maxPriorityFeePerGas: gasPrice,
  });
  await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

export const paymasterDeposit = (network: NetworkName) =>
  chainOf(network).public.readContract({
    address: chainOf(network).info.paymaster,
    abi: paymasterAbi,
    functionName: "getDeposit",
  });

/** The paymaster's owner takes `amount` out of its deposit at the EntryPoint. */
export async function withdrawDeposit(network: NetworkName, amount: bigint) {
  const c = chainOf(network);
  const owner = privateKeyToAccount(devnetKeys.owner);
  const hash = await c.walletFor(devnetKeys.owner).writeContract({
    address: c.info.paymaster,
    abi: paymasterAbi,
    functionName: "withdrawTo",
    args: [owner.address, amount],
  });
  await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

/** Anyone may add to a paymaster's deposit: the owner sends `amount` to the EntryPoint for it. */
export async function addDeposit(network: NetworkName, amount: bigint) {
  const c = chainOf(network);
  const hash = await c.walletFor(devnetKeys.owner).writeContract({
    address: c.info.entryPoint,
    abi: entryPointAbi,
    functionName: "depositTo",
    args: [c.info.paymaster],
    value: amount,
  });
  await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}
