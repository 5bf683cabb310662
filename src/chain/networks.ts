import { type PublicClient, parseGwei } from "viem";
import { type Capability, capabilitiesOf, requireCapability, unavailableRefusal } from "../config/capabilities";
import type { Config, NetworkConfig, NetworkName, TokenConfig } from "../config/schema";
import { NETWORKS } from "../config/schema";
import { ApiError } from "../errors";
import type { Logger } from "../logger";
import { observeReceiptLag } from "../metrics/metrics";
import type { TokenDomain } from "./contract-checks";
import { createExecutor, type Executor } from "./executor";
import type { KeyLeaseStore } from "./key-lease-store";
import { createNewHeads, type NewHeads } from "./new-heads";
import { createChainClient } from "./rpc";
import { createSyncSendClient, createSyncSender } from "./sync-send";

/**
 * What the start learned that does not stop it: per network and capability, why it is unavailable there. A flow
 * is one feature among several, so wiring only it needs (a router the relayer does not whitelist, for swaps) turns
 * it off on that network (reported by /health, refused by the flow's routes with the reason) instead of refusing
 * to start the service.
 */
export type Wiring = {
  unavailable: Partial<Record<NetworkName, Record<string, string>>>;
  /** Per network, each token's own EIP-712 name and version read at start (by lower-case address; null: none). */
  tokenDomains?: Partial<Record<NetworkName, Record<string, TokenDomain | null>>>;
  /** Per network where swaps are enabled, whether its node traces mined transactions (chain/trace-probe.ts). */
  tracing?: Partial<Record<NetworkName, boolean>>;
};

/** Everything the service holds per enabled network: its config, a read client and its executor pool. */
export type NetworkRuntime = {
  name: NetworkName;
  config: NetworkConfig;
  client: PublicClient;
  executor: Executor;
  token(address: string): TokenConfig | undefined;
  /**
   * Why a capability is off here although configured (the start's wiring check, chain/wiring-check.ts); one not
   * listed works.
   */
  unavailable: Readonly<Record<string, string>>;
  /** A token's own EIP-712 name and version, as the start read them from the chain (null: it has none, or unread). */
  tokenDomain(address: string): TokenDomain | null;
  /** What this network serves: the capabilities its config enables, less those the start found unavailable. */
  capabilities: readonly Capability[];
  /**
   * Whether the start found that the node traces mined transactions (how a swap's revert is read in its block);
   * undefined where it was not asked (swaps not enabled, or a service built without the start's checks).
   */
  traces?: boolean;
};

export type Networks = {
  enabled: NetworkName[];
  /**
   * The runtime of an enabled network; else 400 `validation_error` naming `field` (default
   * `paymentRequirements.network`). With `capability`, a network that does not enable it is refused too, with
   * what to configure (src/config/capabilities.ts).
   */
  get(name: string, needs?: { capability?: Capability; field?: string }): NetworkRuntime;
  all(): NetworkRuntime[];
  /** Takes every executor's first key leases (nothing without leases); after the takeover listeners are registered. */
  start(): Promise<void>;
  /** Stops the executors and subscriptions; resolves once the key leases are released. */
  stop(): Promise<void>;
};

/**
 * Executor key leases for several instances on one database: the executors send only with the keys this instance
 * leases (`config.keyLeasesPerInstance` of each network's, for `config.keyLeaseMs`). On SQLite the single instance
 * passes a fixed `instanceId`, so that after a crash it takes its own leases again at once.
 */
export type NetworkLeases = { store: KeyLeaseStore; instanceId: string };

/**
 * How often eth_blockNumber is read while a receipt is awaited (only then: see receipt-poller.ts): a tenth of
 * the block time, so a receipt is seen on average a twentieth of a block after its block (bsc 45 ms, base
 * 200 ms), within 25 ms and 1 s. A sync send needs no poll at all.
 */
export const receiptPollIntervalMs = (blockTimeMs: number) =>
  Math.min(1_000, Math.max(25, Math.round(blockTimeMs / 10)));

/**
 * How long a sync send waits for its receipt before the plain path takes over: four blocks (a full block and
 * some more is what a transaction sent just after a block needs), at least 2 s for a slow node, and never past
 * the first fee bump or the receipt timeout (both are counted from the broadcast, sync wait included).
 */
export const syncSendTimeoutMs = (blockTimeMs: number, replaceAfterMs: number, receiptTimeoutMs = replaceAfterMs) =>
  Math.min(replaceAfterMs, receiptTimeoutMs, Math.max(2_000, 4 * blockTimeMs));

/**
 * How long network fees are reused: three blocks, at least 1 s. maxFeePerGas is twice the base fee, which covers the
 * base fee's largest rise over three full blocks (1.125³ = 1.42) with room to spare, and a transaction that still
 * waits is bumped (replaceAfterMs). At one read a second, every settle on 1-s blocks paid its own round trip.
 */
export const feeCacheMs = (blockTimeMs: number) => Math.max(1_000, 3 * blockTimeMs);

/**
 * With a newHeads subscription, how long without a head before the receipt poller reads eth_blockNumber again: three
 * blocks, at least 1 s (a socket that is open but silent must not stall receipts for longer).
 */
export const newHeadsStaleAfterMs = (blockTimeMs: number) => Math.max(1_000, 3 * blockTimeMs);

export function createNetworks(
  config: Config,
  logger: Logger,
  wiring: Pick<Wiring, "unavailable"> & Partial<Pick<Wiring, "tokenDomains" | "tracing">> = { unavailable: {} },
  leases?: NetworkLeases,
): Networks {
  const runtimes = new Map<NetworkName, NetworkRuntime>();
  const subscriptions: NewHeads[] = [];
  for (const name of NETWORKS) {
    const networkConfig = config.networks[name];
    if (!networkConfig) continue;
    const client = createChainClient({ chainId: networkConfig.chainId, rpcUrls: networkConfig.rpcUrls });
    const { blockTimeMs } = networkConfig;
    const syncSend = createSyncSender({
      client: createSyncSendClient(
        networkConfig.rpcUrls[0] as string,
        syncSendTimeoutMs(blockTimeMs, networkConfig.replaceAfterMs, networkConfig.receiptTimeoutMs),
      ),
      mode: networkConfig.sendRawTransactionSync,
      logger,
    });
    // Probed once, now, so that the first settle does not pay for the question.
    void syncSend.enabled();
    // One newHeads subscription per network, opened now and kept; the poller polls whenever it is down.
    const newHeads = networkConfig.wsUrl
      ? createNewHeads({ url: networkConfig.wsUrl, network: name, logger })
      : undefined;
    if (newHeads) subscriptions.push(newHeads);
    const executor = createExecutor({
      client,
      chainId: networkConfig.chainId,
      privateKeys: networkConfig.executorKeys,
      maxFeePerGasCap: parseGwei(String(networkConfig.maxFeePerGasGwei)),
      receiptTimeoutMs: networkConfig.receiptTimeoutMs,
      replaceAfterMs: networkConfig.replaceAfterMs,
      pollIntervalMs: receiptPollIntervalMs(blockTimeMs),
      ...(newHeads ? { newHeads, newHeadsStaleAfterMs: newHeadsStaleAfterMs(blockTimeMs) } : {}),
      feeCacheMs: feeCacheMs(blockTimeMs),
      syncSend,
      logger,
      onReceipt: (lagMs) => observeReceiptLag(name, lagMs),
      ...(leases
        ? {
            leases: {
              store: leases.store,
              network: name,
              instanceId: leases.instanceId,
              leaseMs: config.keyLeaseMs,
              ...(config.keyLeasesPerInstance ? { want: config.keyLeasesPerInstance } : {}),
            },
          }
        : {}),
    });
    const off = wiring.unavailable[name] ?? {};
    const domains = wiring.tokenDomains?.[name] ?? {};
    const tokens = new Map(networkConfig.tokens.map((token) => [token.address.toLowerCase(), token]));
    runtimes.set(name, {
      name,
      config: networkConfig,
      client,
      executor,
      token: (address) => tokens.get(address.toLowerCase()),
      unavailable: off,
      capabilities: capabilitiesOf(networkConfig).filter((capability) => !(capability in off)),
      tokenDomain: (address) => domains[address.toLowerCase()] ?? null,
      ...(wiring.tracing?.[name] !== undefined ? { traces: wiring.tracing[name] } : {}),
    });
  }
  return {
    enabled: [...runtimes.keys()],
    get(name, needs = {}) {
      const runtime = runtimes.get(name as NetworkName);
      const field = needs.field ?? "paymentRequirements.network";
      if (!runtime) {
        const enabled = [...runtimes.keys()];
        throw new ApiError("validation_error", `network not enabled: ${name} (valid: ${enabled.join(", ")})`, {
          field,
          validNetworks: enabled,
        });
      }
      if (needs.capability) {
        requireCapability(runtime, needs.capability, field);
        const reason = runtime.unavailable[needs.capability];
        if (reason) throw unavailableRefusal(runtime, needs.capability, reason, field);
      }
      return runtime;
    },
    all: () => [...runtimes.values()],
    async start() {
      await Promise.all([...runtimes.values()].map((runtime) => runtime.executor.start()));
    },
    async stop() {
      const stopped = [...runtimes.values()].map((runtime) => runtime.executor.stop());
      for (const newHeads of subscriptions) newHeads.stop();
      await Promise.all(stopped);
    },
  };
}
