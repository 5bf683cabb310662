import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { Address } from "viem";
import { CANONICAL } from "../../chain/canonical";
import { knownSwapConfig } from "../../swap/known-routers";
import { type DeployNetwork, envPrefix, type Feature, type PresetToken } from "./network";

/** The environment variables that hold a network's secrets (src/config/load.ts reads them); never in the file. */
export function secretEnvironment(network: DeployNetwork, features: readonly Feature[]): string[] {
  const prefix = envPrefix(network.name);
  return [
    `${prefix}_RPC_URLS`,
    `${prefix}_EXECUTOR_KEYS`,
    ...(features.includes("smart-wallets") ? [`${prefix}_PAYMASTER_SIGNER_KEY`, `${prefix}_BUNDLER_URL`] : []),
    "ADMIN_API_KEY",
  ];
}

/** Fees written for each token: a starting point the operator edits (decisions on price are theirs). */
function tokenEntry(token: PresetToken) {
  const unit = 10n ** BigInt(token.decimals);
  return {
    ...token,
    feeBps: 30,
    minFee: (unit / 100n).toString(),
    deploymentFeePerWallet: (unit / 10n).toString(),
  };
}

export type ConfigOut = {
  network: DeployNetwork;
  features: readonly Feature[];
  addresses: Record<string, Address>;
  tokens: PresetToken[];
  feeRecipient: Address;
  allowUntrustedSetup: boolean;
  /** The block the pool was deployed at or before: where its leaf indexer starts. */
  privacyPoolStartBlock?: number;
};

type Json = Record<string, unknown>;

/**
 * Writes (or adds this network to) a config for `relay402 start`: every address and the network's settings; the
 * secrets are left to the environment variables `secretEnvironment` names, so the file can be kept in git.
 */
export function writeConfig(file: string, out: ConfigOut): void {
  const existing: Json = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
  const { network, features, addresses } = out;
  const contracts: Json = {};
  if (addresses.Relayer) contracts.relayer = addresses.Relayer;
  if (addresses.WalletFactory) contracts.factory = addresses.WalletFactory;
  if (addresses.Paymaster) contracts.paymaster = addresses.Paymaster;
  if (features.includes("smart-wallets")) contracts.entryPoint = CANONICAL.entryPointV07.address;
  if (addresses.PrivacyPool) contracts.privacyPool = addresses.PrivacyPool;
  // A pool deployed by an earlier run keeps the start block that run wrote.
  const previous = (existing.networks as Record<string, Json> | undefined)?.[network.name];
  const previousPool = (previous?.contracts as Json | undefined)?.privacyPool;
  const startBlock = !addresses.PrivacyPool
    ? undefined
    : (out.privacyPoolStartBlock ??
      (previousPool === addresses.PrivacyPool ? (previous?.privacyPoolStartBlock as number | undefined) : undefined));
  const networkConfig: Json = {
    chainId: network.chainId,
    contracts,
    tokens: out.tokens.map(tokenEntry),
    feeRecipient: out.feeRecipient,
    ...(features.includes("x402") ? { x402: { enabled: true } } : {}),
    ...(features.includes("swaps") ? { swap: knownSwapConfig(network.name) } : {}),
    ...(startBlock !== undefined ? { privacyPoolStartBlock: startBlock } : {}),
  };
  const config: Json = {
    mode: "production",
    ...existing,
    networks: { ...((existing.networks as Json | undefined) ?? {}), [network.name]: networkConfig },
    ...(features.includes("incognito") && out.allowUntrustedSetup ? { incognito: { allowUntrustedSetup: true } } : {}),
  };
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
}
