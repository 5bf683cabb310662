import { CONFIG_DEFAULTS, NETWORK_DEFAULTS, validateConfig } from "../../src/config/load";
import type { Config, ConfigInput, NetworkConfigInput } from "../../src/config/schema";
import { devnetKeys } from "./keys";
import type { DevnetManifest, DevnetNetwork } from "./start";

/** Fees used on the devnet: 0.5% with a floor, and a flat deployment fee per wallet. */
function networkConfig(network: DevnetNetwork): NetworkConfigInput {
  return {
    ...NETWORK_DEFAULTS,
    chainId: network.chainId,
    rpcUrls: [network.rpcUrl],
    bundlerUrl: network.bundlerUrl,
    contracts: {
      relayer: network.relayer,
      factory: network.factory,
      paymaster: network.paymaster,
      entryPoint: network.entryPoint,
      privacyPool: network.privacyPool,
    },
    tokens: Object.entries(network.tokens).map(([symbol, token]) => ({
      symbol,
      address: token.address,
      decimals: token.decimals,
      eip3009: token.eip3009,
      feeBps: 50,
      minFee: (10n ** BigInt(token.decimals) / 100n).toString(),
      deploymentFeePerWallet: (10n ** BigInt(token.decimals)).toString(),
      // Incognito unshield: 0.3% of withdrawAmount with a floor of 0.05, so that the test's two fees differ in kind.
      unshieldFeeBps: 30,
      unshieldMinFee: (10n ** BigInt(token.decimals) / 20n).toString(),
    })),
    feeRecipient: network.feeRecipient,
    executorKeys: [...devnetKeys.executors],
    paymasterSignerKey: devnetKeys.paymasterSigner,
    maxFeePerGasGwei: 500,
    receiptTimeoutMs: 20_000,
    replaceAfterMs: 8_000,
    x402: { enabled: true },
  };
}

/** The embedded default: the service on the local devnet with a SQLite file. */
export function configFromManifest(manifest: DevnetManifest, overrides: Partial<ConfigInput> = {}): Config {
  const port = Number(new URL(manifest.service).port);
  return validateConfig({
    ...CONFIG_DEFAULTS,
    mode: "devnet",
    host: "127.0.0.1",
    port,
    databasePath: ".devnet/relay402.sqlite",
    adminApiKey: manifest.adminApiKey,
    networks: { bsc: networkConfig(manifest.networks.bsc), base: networkConfig(manifest.networks.base) },
    ...overrides,
  });
}
