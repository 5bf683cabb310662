import { CONFIG_DEFAULTS, NETWORK_DEFAULTS, validateConfig } from "../../src/config/load";
import type { Config, ConfigInput, NetworkConfigInput } from "../../src/config/schema";
import { knownSwapConfig, knownSwapNetwork } from "../../src/swap/known-routers";
import type { DevnetDex } from "./dex-plan";
import { devnetKeys } from "./keys";
import type { DevnetManifest, DevnetNetwork } from "./start";

/** The devnet's Uniswap V2/V3 (manifest `networks.*.dex`), two-hop routes through the wrapped native token. */
function swapConfig(dex: DevnetDex): NonNullable<NetworkConfigInput["swap"]> {
  return {
    routers: [
      {
        name: dex.v2.name,
        address: dex.v2.router,
        kind: "v2",
        factory: dex.v2.factory,
        initCodeHash: dex.v2.initCodeHash,
        feeBps: dex.v2.feeBps,
      },
      {
        name: dex.v3.name,
        address: dex.v3.router,
        kind: "v3",
        factory: dex.v3.factory,
        initCodeHash: dex.v3.initCodeHash,
        feeTiers: dex.v3.feeTiers,
      },
    ],
    quoter: dex.v3.quoter,
    connectors: [dex.wrappedNative],
    wrappedNative: dex.wrappedNative,
  };
}

/**
 * A network's swaps: the devnet DEX when one was deployed; on a fork, the forked chain's real routers
 * (PancakeSwap on bsc, Uniswap on base: src/swap/known-routers.ts), of which nothing is deployed. The start's
 * swap wiring check then reads them on the forked chain.
 */
function networkSwapConfig(network: DevnetNetwork): Pick<NetworkConfigInput, "swap"> {
  if (network.dex) return { swap: swapConfig(network.dex) };
  const known = network.forked ? knownSwapNetwork(network.chainId) : undefined;
  const swap = known && knownSwapConfig(known);
  return swap ? { swap } : {};
}

/** A devnet network's service config. Fees used on the devnet: 0.5% with a floor, and a flat deployment fee per wallet. */
export function devnetNetworkConfig(network: DevnetNetwork): NetworkConfigInput {
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
      eip2612: token.eip2612,
      feeBps: 50,
      minFee: (10n ** BigInt(token.decimals) / 100n).toString(),
      deploymentFeePerWallet: (10n ** BigInt(token.decimals)).toString(),
      // Incognito unshield: 0.3% of withdrawAmount with a floor of 0.05, so that the test's two fees differ in kind.
      unshieldFeeBps: 30,
      unshieldMinFee: (10n ** BigInt(token.decimals) / 20n).toString(),
      // Swaps: 0.3% of sellAmount with a floor of 0.01.
      swapFeeBps: 30,
      swapMinFee: (10n ** BigInt(token.decimals) / 100n).toString(),
    })),
    ...networkSwapConfig(network),
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
    networks: { bsc: devnetNetworkConfig(manifest.networks.bsc), base: devnetNetworkConfig(manifest.networks.base) },
    ...overrides,
  });
}
