import { formatEther } from "viem";
import type { NetworkRuntime } from "../chain/networks";
import { readBalances } from "./balances";
import type { StatusSources } from "./status-sources";

async function bundlerUp(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_supportedEntryPoints", params: [] }),
      signal: AbortSignal.timeout(2000),
    });
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * A network's health. Everyone sees the status of each component; only the operator (`figures`, the admin key)
 * sees the executors' addresses and balances, the paymaster deposit and the lease counts: they tell an attacker
 * which keys to watch and when the service runs dry.
 */
async function networkHealth(network: NetworkRuntime, figures: boolean) {
  const { config, client, executor } = network;
  const [block, bundler, balances] = await Promise.all([
    client.getBlockNumber({ cacheTime: 0 }).catch(() => null),
    config.bundlerUrl ? bundlerUp(config.bundlerUrl) : null,
    // Executor balances and the paymaster deposit in one round trip, and only for the operator.
    figures ? readBalances(network) : null,
  ]);
  const leases = keyLeaseHealth(network);
  const status = {
    chainId: config.chainId,
    blockNumber: block === null ? null : Number(block),
    rpc: block === null ? ("down" as const) : ("ok" as const),
    // Absent where smart wallets are not enabled (no bundler configured).
    bundler: bundler === null ? undefined : bundler ? ("ok" as const) : ("down" as const),
    capabilities: Array.from(network.capabilities),
    relayer: config.contracts.relayer ?? null,
    paymaster: config.contracts.paymaster ?? null,
    privacyPool: config.contracts.privacyPool ?? null,
    swap: swapHealth(network),
    // Configured capabilities the start switched off here (a swap router not whitelisted, a pool verifying another
    // circuit), each with why; absent when there is none.
    ...(Object.keys(network.unavailable).length > 0 ? { unavailable: { ...network.unavailable } } : {}),
  };
  if (!figures) {
    const keyLeases = leases && { status: leases.status, ...(leases.reason ? { reason: leases.reason } : {}) };
    return { ...status, keyLeases };
  }
  return {
    ...status,
    executors: executor.addresses.map((address, i) => ({
      address,
      balance: balances ? formatEther(balances.executors[i]?.balance as bigint) : null,
    })),
    paymasterDeposit: balances?.paymasterDeposit != null ? formatEther(balances.paymasterDeposit) : null,
    keyLeases: leases,
  };
}

/**
 * null: the executor uses every configured key (one instance); else how many of them this instance leases now
 * (several instances on one database). Holding none, its settles answer 503 and the service is degraded.
 */
function keyLeaseHealth({ executor }: NetworkRuntime) {
  if (!executor.keyLeases) return null;
  const held = executor.heldKeys().length;
  const keys = executor.addresses.length;
  if (held > 0) return { status: "ok" as const, held, keys };
  const reason = "this instance holds no executor key lease here: its settles answer 503 until it takes one";
  return { status: "none_held" as const, held, keys, reason };
}

/**
 * null: swaps are not configured here; unavailable: configured, but the start's wiring check found why not.
 * `revertCauses`: whether the start found the node tracing mined transactions ("traced"), or not ("untraced": a
 * swap reverted by a same-block front-run cannot be told from the payer's doing, and counts only against swaps).
 */
function swapHealth(network: NetworkRuntime) {
  if (!network.config.swap) return null;
  const revertCauses =
    network.traces === undefined ? {} : { revertCauses: network.traces ? ("traced" as const) : ("untraced" as const) };
  const reason = network.unavailable.swaps;
  if (reason) return { status: "unavailable" as const, reason, ...revertCauses };
  return { status: "ok" as const, ...revertCauses };
}

/**
 * ok: everything answers · degraded: some chain or bundler does not, a capability a network configures is
 * unavailable (reasons in networks.<name>.unavailable; swaps' also in .swap), or an executor on key leases holds
 * none (networks.<name>.keyLeases)
 * · down: no chain or no database · draining: a graceful shutdown is under way (new settles are refused).
 */
export async function checkHealth(services: StatusSources, options: { figures: boolean } = { figures: false }) {
  const entries = await Promise.all(
    services.networks.all().map(async (n) => [n.name, await networkHealth(n, options.figures)] as const),
  );
  const networks = Object.fromEntries(entries);
  const database = (await services.stores.healthy()) ? ("ok" as const) : ("down" as const);
  const rpcUp = entries.filter(([, n]) => n.rpc === "ok").length;
  const allUp = entries.every(
    ([, n]) => n.rpc === "ok" && n.bundler !== "down" && !n.unavailable && n.keyLeases?.status !== "none_held",
  );
  // Draining first: a load balancer must stop sending to an instance that is shutting down, whatever else holds.
  const status = services.drain.draining
    ? "draining"
    : database === "down" || rpcUp === 0
      ? "down"
      : allUp
        ? "ok"
        : "degraded";
  return { status, version: services.version, networks, database } as const;
}
