import { entryPointAbi } from "@relay402/client/wire/abis";
import type { Address, ContractFunctionParameters } from "viem";
import { MULTICALL3 } from "../chain/addresses";
import type { NetworkRuntime } from "../chain/networks";
import { smartWalletSettingsOf } from "../config/capabilities";

const multicallAbi = [
  {
    type: "function",
    name: "getEthBalance",
    stateMutability: "view",
    inputs: [{ name: "addr", type: "address" }],
    outputs: [{ name: "balance", type: "uint256" }],
  },
  {
    type: "function",
    name: "getBlockNumber",
    stateMutability: "view",
    inputs: [],
    outputs: [{ name: "blockNumber", type: "uint256" }],
  },
] as const;

export type NetworkBalances = {
  /** The block the figures were read at (the same call's block.number). */
  block: bigint;
  executors: { address: Address; balance: bigint }[];
  /** The paymaster's deposit at the EntryPoint, which pays for sponsored UserOps. */
  /** null where smart wallets are not enabled (no paymaster). */
  paymasterDeposit: bigint | null;
};

/**
 * The executors' native balances and the paymaster's EntryPoint deposit in one round trip (one Multicall3
 * aggregate3 eth_call), with the block they were read at; null when the chain did not answer. Read by /health, by
 * /metrics, by the dashboard and by the operator's alerts.
 */
export async function readBalances(network: NetworkRuntime): Promise<NetworkBalances | null> {
  const { config, client, executor } = network;
  const wallet = smartWalletSettingsOf(config);
  // Elements of three signatures: viem infers no tuple through the spreads, so the list is typed as such.
  const contracts: ContractFunctionParameters[] = [
    { address: MULTICALL3, abi: multicallAbi, functionName: "getBlockNumber", args: [] },
    ...executor.addresses.map((address) => ({
      address: MULTICALL3,
      abi: multicallAbi,
      functionName: "getEthBalance",
      args: [address],
    })),
    // The paymaster's deposit where smart wallets are enabled (null elsewhere).
    ...(wallet
      ? [{ address: wallet.entryPoint, abi: entryPointAbi, functionName: "balanceOf", args: [wallet.paymaster] }]
      : []),
  ];
  const values = await client
    .multicall({ multicallAddress: MULTICALL3, allowFailure: false, contracts })
    .catch(() => null);
  if (!values) return null;
  return {
    block: values[0] as bigint,
    executors: executor.addresses.map((address, i) => ({ address, balance: values[i + 1] as bigint })),
    paymasterDeposit: wallet ? (values.at(-1) as bigint) : null,
  };
}
