import { NETWORKS, type NetworkName } from "@relay402/client/wire/networks";
import type { NetworkPreset } from "./preset";
import { base } from "./presets/base";
import { baseSepolia } from "./presets/base-sepolia";
import { bsc } from "./presets/bsc";
import { bscTestnet } from "./presets/bsc-testnet";

export type { NetworkPreset, PresetRouter, PresetSwap, PresetToken } from "./preset";

/**
 * Every network relay402 knows. Its name is the wire format's (NETWORKS of the client package, the order config,
 * answers and docs list them in): another EVM chain is its name there and one more preset here (and its test in
 * presets.test.ts); everything keyed by network name follows that list.
 */
export const NETWORK_PRESETS = [bsc, base, bscTestnet, baseSepolia] as const;

type PresetName = (typeof NETWORK_PRESETS)[number]["name"];
/** A type error here means the presets and the wire format's NETWORKS name different networks. */
const presetsAreTheWireNetworks: [PresetName, NetworkName] extends [NetworkName, PresetName] ? true : never = true;
void presetsAreTheWireNetworks;

export { NETWORKS, type NetworkName };

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
