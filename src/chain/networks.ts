import { type PublicClient, parseGwei } from "viem";
import type { Config, NetworkConfig, NetworkName, TokenConfig } from "../config/schema";
import { NETWORKS } from "../config/schema";
import { ApiError } from "../errors";
import type { Logger } from "../logger";
import { createExecutor, type Executor } from "./executor";
import { createChainClient } from "./rpc";

/** Everything the service holds per enabled network: its config, a read client and its executor pool. */
export type NetworkRuntime = {
  name: NetworkName;
  config: NetworkConfig;
  client: PublicClient;
  executor: Executor;
  token(address: string): TokenConfig | undefined;
};

export type Networks = {
  enabled: NetworkName[];
  get(name: string): NetworkRuntime;
  all(): NetworkRuntime[];
  stop(): void;
};

export function createNetworks(config: Config, logger: Logger): Networks {
  const runtimes = new Map<NetworkName, NetworkRuntime>();
  for (const name of NETWORKS) {
    const networkConfig = config.networks[name];
    if (!networkConfig) continue;
    const client = createChainClient({ chainId: networkConfig.chainId, rpcUrls: networkConfig.rpcUrls });
    const executor = createExecutor({
      client,
      chainId: networkConfig.chainId,
      privateKeys: networkConfig.executorKeys,
      maxFeePerGasCap: parseGwei(String(networkConfig.maxFeePerGasGwei)),
      receiptTimeoutMs: networkConfig.receiptTimeoutMs,
      replaceAfterMs: networkConfig.replaceAfterMs,
      pollIntervalMs: 100,
      logger,
    });
    const tokens = new Map(networkConfig.tokens.map((token) => [token.address.toLowerCase(), token]));
    runtimes.set(name, {
      name,
      config: networkConfig,
      client,
      executor,
      token: (address) => tokens.get(address.toLowerCase()),
    });
  }
  return {
    enabled: [...runtimes.keys()],
    get(name) {
      const runtime = runtimes.get(name as NetworkName);
      if (!runtime) {
        const enabled = [...runtimes.keys()];
        throw new ApiError("validation_error", `network not enabled: ${name} (valid: ${enabled.join(", ")})`, {
          field: "paymentRequirements.network",
          validNetworks: enabled,
        });
      }
      return runtime;
    },
    all: () => [...runtimes.values()],
    stop() {
      for (const runtime of runtimes.values()) runtime.executor.stop();
    },
  };
}
