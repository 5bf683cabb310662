import type { NetworkRuntime, Networks } from "../chain/networks";
import type { Config } from "../config/schema";
import type { RelayerPort } from "../settlement/relayer-port";

/**
 * What /health and /config read of the service: a narrow port, so that status never imports the service container
 * (which builds status, and would close an import circle).
 */
export type StatusSources = {
  version: string;
  config: Pick<Config, "rateLimitPerMinute" | "paymasterValiditySeconds">;
  networks: Pick<Networks, "all">;
  relayerFor(network: NetworkRuntime): Pick<RelayerPort, "domain">;
  /** The incognito circuit's id, listed per network where the pool is configured. */
  incognito: { circuit: { descriptor: { id: string } } };
  /** How x402 moves each asset it takes on a network; absent when the x402 flow is not served at all. */
  x402?: {
    assets(network: NetworkRuntime): Promise<readonly { asset: string; assetTransferMethod: "eip3009" | "permit2" }[]>;
  };
  stores: { healthy(): Promise<boolean> };
  drain: { readonly draining: boolean };
};
