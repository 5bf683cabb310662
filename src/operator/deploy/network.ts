import type { Address } from "viem";
import { CHAIN_IDS, type NetworkName } from "../../config/schema";
import { BASE_USDC, BSC_USDT, KNOWN_SWAP } from "../../swap/known-routers";

/** A stablecoin users pay with, as the config's `tokens` entries need it. */
export type PresetToken = { symbol: string; address: Address; decimals: number; eip3009: boolean };

/** What `deploy` needs to know of a network: its chain, the tokens to whitelist, the DEX routers of swaps. */
export type DeployNetwork = {
  name: NetworkName;
  chainId: number;
  tokens: PresetToken[];
  swapRouters: { address: Address; kind: "v2" | "v3" }[];
};

const routersOf = (network: "bsc" | "base") =>
  KNOWN_SWAP[network].swap.routers.map((router) => ({ address: router.address, kind: router.kind }));

/**
 * The networks deploy knows until the network presets land: bsc's Tether USD (18 decimals, no EIP-3009) and
 * base's Circle USDC (6 decimals, EIP-3009), addresses and sources in src/swap/known-routers.ts, as are the
 * routers (KNOWN_SWAP).
 */
const DEPLOY_NETWORKS: Record<string, DeployNetwork> = {
  bsc: {
    name: "bsc",
    chainId: CHAIN_IDS.bsc,
    tokens: [{ symbol: "USDT", address: BSC_USDT, decimals: 18, eip3009: false }],
    swapRouters: routersOf("bsc"),
  },
  base: {
    name: "base",
    chainId: CHAIN_IDS.base,
    tokens: [{ symbol: "USDC", address: BASE_USDC, decimals: 6, eip3009: true }],
    swapRouters: routersOf("base"),
  },
};

/** The network `name` as deploy uses it: the one place that reads a network's facts (switch it to the presets). */
export function deployNetwork(name: string): DeployNetwork | undefined {
  const network = Object.hasOwn(DEPLOY_NETWORKS, name) ? DEPLOY_NETWORKS[name] : undefined;
  return network ? structuredClone(network) : undefined;
}

/** The prefix of a network's environment variables (decisions.md): upper case, `-` as `_` (BSC_TESTNET_RPC_URLS). */
export const envPrefix = (network: string) => network.toUpperCase().replaceAll("-", "_");

export const DEPLOY_NETWORK_NAMES: readonly string[] = Object.keys(DEPLOY_NETWORKS);

export const FEATURES = ["payments", "smart-wallets", "x402", "swaps", "incognito"] as const;
export type Feature = (typeof FEATURES)[number];
/**
 * What `deploy` sets up when `--features` is absent: every feature that needs nothing beyond the chain. Swaps
 * need the chain's DEX (present on the real networks, absent on a bare rehearsal chain) and incognito needs a
 * ceremony's verifier, so both are asked for by name.
 */
export const DEFAULT_FEATURES: readonly Feature[] = ["payments", "smart-wallets", "x402"];

/** `--features a,b`: the known names, or the first unknown one. */
export function parseFeatures(list: string): { features: Feature[] } | { unknown: string } {
  const names = list
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names) if (!(FEATURES as readonly string[]).includes(name)) return { unknown: name };
  return { features: [...new Set(names as Feature[])] };
}
