import type { Address } from "viem";
import { envPrefix, NETWORKS, type NetworkName, presetOf } from "../../networks";

export { envPrefix };

/**
 * A stablecoin users pay with, as the config's `tokens` entries need it; `eip2612` (its permit) lets a payer without
 * native coin pay (docs/payments.md), so the written config says it where the preset does.
 */
export type PresetToken = { symbol: string; address: Address; decimals: number; eip3009: boolean; eip2612?: boolean };

/** What `deploy` needs to know of a network: its chain, the tokens to whitelist, the DEX routers of swaps. */
export type DeployNetwork = {
  name: NetworkName;
  chainId: number;
  /** A testnet's coins are worth nothing; a mainnet's contracts hold real funds (deploy asks more there). */
  testnet: boolean;
  tokens: PresetToken[];
  swapRouters: { address: Address; kind: "v2" | "v3" }[];
};

/**
 * The network `name` as deploy uses it, from its preset (src/networks/presets, each fact with its source): the
 * chain id, the stablecoins users pay with (the default whitelist) and the DEX routers swaps go through.
 */
export function deployNetwork(name: string): DeployNetwork | undefined {
  if (!(NETWORKS as readonly string[]).includes(name)) return undefined;
  const preset = presetOf(name as NetworkName);
  return {
    name: preset.name,
    chainId: preset.chainId,
    testnet: preset.testnet,
    tokens: preset.stablecoins.map(({ symbol, address, decimals, eip3009, eip2612 }) => ({
      symbol,
      address,
      decimals,
      eip3009,
      eip2612,
    })),
    swapRouters: (preset.swap?.routers ?? []).map((router) => ({ address: router.address, kind: router.kind })),
  };
}

export const DEPLOY_NETWORK_NAMES: readonly string[] = NETWORKS;

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
