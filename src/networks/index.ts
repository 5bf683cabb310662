import type { NetworkPreset } from "./preset";
import { base } from "./presets/base";
import { baseSepolia } from "./presets/base-sepolia";
import { bsc } from "./presets/bsc";
import { bscTestnet } from "./presets/bsc-testnet";

export type { NetworkPreset, PresetRouter, PresetSwap, PresetToken } from "./preset";

/**
 * Every network relay402 knows, in the order config, answers and docs list them. Another EVM chain is one more
 * preset here (and its test in presets.test.ts); everything keyed by network name follows this list.
 */
export const NETWORK_PRESETS = [bsc, base, bscTestnet, baseSepolia] as const;

export type NetworkName = (typeof NETWORK_PRESETS)[number]["name"];

/** The network names, in preset order. */
export const NETWORKS: readonly NetworkName[] = NETWORK_PRESETS.map((preset) => preset.name);

const byName = new Map<string, NetworkPreset<NetworkName>>(NETWORK_PRESETS.map((preset) => [preset.name, preset]));

export const isNetworkName = (name: string): name is NetworkName => byName.has(name);

export function presetOf(name: NetworkName): NetworkPreset<NetworkName> {
  return byName.get(name) as NetworkPreset<NetworkName>;
}

/** The preset of the chain with this id, if relay402 knows it. */
export const presetOfChain = (chainId: number): NetworkPreset<NetworkName> | undefined =>
  NETWORK_PRESETS.find((preset) => preset.chainId === chainId);

/** The prefix of a network's environment variables: its name in upper case with `-` as `_` (`BSC_TESTNET`). */
export const envPrefix = (name: string) => name.toUpperCase().replaceAll("-", "_");

/** The explorer's page of a transaction on the network. */
export const explorerTxUrl = (name: NetworkName, hash: string) => presetOf(name).explorer.tx.replace("{hash}", hash);

/** The explorer's page of an address on the network. */
export const explorerAddressUrl = (name: NetworkName, address: string) =>
  presetOf(name).explorer.address.replace("{address}", address);
