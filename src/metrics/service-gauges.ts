import type { NetworkRuntime, Networks } from "../chain/networks";
import type { FlowGauge } from "../flow";
import type { Drain } from "../lifecycle/drain";
import type { NetworkBalances } from "../status/balances";
import { type GaugeSample, Registry } from "./registry";

/** How long one read of a network's balances serves scrapes: a scrape storm costs one eth_call per network. */
export const BALANCES_CACHE_MS = 5_000;

export type ServiceGaugeDeps = {
  networks: Networks;
  drain: Drain;
  /** One batched read per network (Multicall3): executor balances and the paymaster's EntryPoint deposit. */
  readBalances(network: NetworkRuntime): Promise<NetworkBalances | null>;
  /** The flows' own gauges (their figures from the database), cached as the balances are. */
  flowGauges?: readonly FlowGauge[];
  cacheMs?: number;
  /** Milliseconds; the cache's clock. */
  now?: () => number;
};

/**
 * The gauges of one running service, read when /metrics is scraped: in-flight transactions per executor key (from
 * the key pool), executor balances and the paymaster deposit per network (from the chain, cached), and the drain
 * state. Labels are network names and public addresses, never a key.
 */
export function createServiceGauges(deps: ServiceGaugeDeps) {
  const cacheMs = deps.cacheMs ?? BALANCES_CACHE_MS;
  const now = deps.now ?? Date.now;
  const cache = new Map<string, { at: number; read: Promise<NetworkBalances | null> }>();

  /** Concurrent scrapes within the cache window share one read, the one in flight included. */
  function balancesOf(network: NetworkRuntime): Promise<NetworkBalances | null> {
    const cached = cache.get(network.name);
    if (cached && now() - cached.at < cacheMs) return cached.read;
    const read = deps.readBalances(network).catch(() => null);
    cache.set(network.name, { at: now(), read });
    return read;
  }

  const flowReads = new Map<string, { at: number; read: Promise<GaugeSample[]> }>();
  /** A flow gauge's samples; none when its read failed (the scrape still answers). */
  function samplesOf(gauge: FlowGauge): Promise<GaugeSample[]> {
    const cached = flowReads.get(gauge.name);
    if (cached && now() - cached.at < cacheMs) return cached.read;
    const read = gauge.read().catch(() => []);
    flowReads.set(gauge.name, { at: now(), read });
    return read;
  }

  async function render(): Promise<string> {
    const networks = deps.networks.all();
    const [balances, flowSamples] = await Promise.all([
      Promise.all(networks.map(async (network) => [network, await balancesOf(network)] as const)),
      Promise.all((deps.flowGauges ?? []).map(async (gauge) => [gauge, await samplesOf(gauge)] as const)),
    ]);
    const registry = new Registry();
    registry.gauge(
      "relay402_executor_in_flight_transactions",
      "Transactions prepared with the executor key whose send has not ended",
      () =>
        networks.flatMap((network) =>
          network.executor
            .inFlight()
            .map(({ address, count }) => ({ labels: { network: network.name, address }, value: count })),
        ),
    );
    registry.gauge(
      "relay402_executor_keys_held",
      "Executor keys this instance may send with now: the keys it leases (several instances), else every configured key",
      () =>
        networks.map((network) => ({ labels: { network: network.name }, value: network.executor.heldKeys().length })),
    );
    registry.gauge(
      "relay402_executor_balance_wei",
      `Native balance of the executor key, in wei (read at most every ${cacheMs / 1000} s)`,
      () =>
        balances.flatMap(([network, read]) =>
          (read?.executors ?? []).map(
            ({ address, balance }): GaugeSample => ({ labels: { network: network.name, address }, value: balance }),
          ),
        ),
    );
    registry.gauge(
      "relay402_paymaster_deposit_wei",
      `The paymaster's deposit at the EntryPoint, in wei (read at most every ${cacheMs / 1000} s)`,
      () =>
        balances.flatMap(([network, read]) =>
          read && read.paymasterDeposit !== null && network.config.contracts.paymaster
            ? [
                {
                  labels: { network: network.name, paymaster: network.config.contracts.paymaster },
                  value: read.paymasterDeposit,
                },
              ]
            : [],
        ),
    );
    registry.gauge(
      "relay402_balances_read_ok",
      "1 when the last read of the network's balances answered, 0 when the chain did not",
      () => balances.map(([network, read]) => ({ labels: { network: network.name }, value: read ? 1 : 0 })),
    );
    registry.gauge("relay402_draining", "1 while the service shuts down and refuses new settles", () => [
      { value: deps.drain.draining ? 1 : 0 },
    ]);
    registry.gauge(
      "relay402_work_in_flight",
      "Settles, claims and start-up reconciliations running now (what a graceful shutdown waits for)",
      () => [{ value: deps.drain.active }],
    );
    for (const [gauge, samples] of flowSamples) registry.gauge(gauge.name, gauge.help, () => samples);
    return registry.render();
  }

  return { render };
}

export type ServiceGauges = ReturnType<typeof createServiceGauges>;
