import { entryPointAbi } from "@relay402/client/wire/abis";
import type { Address } from "viem";
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
] as const;

export type NetworkBalances = {
  executors: { address: Address; balance: bigint }[];
  /** The paymaster's deposit at the EntryPoint, which pays for sponsored UserOps. */
  /** null where smart wallets are not enabled (no paymaster). */
  paymasterDeposit: bigint | null;
};

/**
 * The executors' native balances and the paymaster's EntryPoint deposit in one round trip (one Multicall3
 * aggregate3 eth_call); null when the chain did not answer. Read by /health and by /metrics.
 */
export async function readBalances(network: NetworkRuntime): Promise<NetworkBalances | null> {
  const { config, client, executor } = network;
  const wallet = smartWalletSettingsOf(config);
  const values = await client
    .multicall({
      multicallAddress: MULTICALL3,
      allowFailure: false,
      contracts: [
        ...executor.addresses.map(
          (address) =>
            ({ address: MULTICALL3, abi: multicallAbi, functionName: "getEthBalance", args: [address] }) as const,
        ),
        // The paymaster's deposit where smart wallets are enabled (null elsewhere).
        ...(wallet
          ? [
              {
                address: wallet.entryPoint,
                abi: entryPointAbi,
                functionName: "balanceOf",
                args: [wallet.paymaster],
              } as const,
            ]
          : []),
      ],
    })
    .catch(() => null);
  if (!values) return null;
  return {
    executors: executor.addresses.map((address, i) => ({ address, balance: values[i] as bigint })),
    paymasterDeposit: wallet ? (values.at(-1) as bigint) : null,
  };
}
