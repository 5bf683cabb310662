import { hasCapability, smartWalletSettingsOf } from "../config/capabilities";
import { ConfigError } from "../config/load";
import { type Config, NETWORKS, type NetworkConfig, type NetworkName } from "../config/schema";
import { type AnyFlow, flowEnabledOn } from "../flow";
import { FLOWS } from "../flows";
import { contractChecks, type TokenDomain } from "./contract-checks";
import type { Wiring } from "./networks";
import { createChainClient } from "./rpc";
import { tracesTransactions } from "./trace-probe";

const TIMEOUT_MS = 5_000;

/**
 * eth_chainId of one JSON-RPC endpoint (a node or a bundler). A failure is described without the URL or the
 * transport's message, since the URL may carry an API key.
 */
async function chainIdOf(url: string): Promise<{ chainId: number } | { problem: string }> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    const timedOut = (error as Error).name === "TimeoutError";
    return { problem: timedOut ? `did not answer eth_chainId within ${TIMEOUT_MS} ms` : "is unreachable" };
  }
  const json = (await response.json().catch(() => null)) as { result?: unknown } | null;
  const result = json?.result;
  if (typeof result !== "string" || !/^0x[0-9a-f]+$/i.test(result)) {
    return { problem: `gave no chain id (HTTP ${response.status})` };
  }
  return { chainId: Number(BigInt(result)) };
}

async function endpointProblem(field: string, url: string, expected: number): Promise<string | undefined> {
  const answer = await chainIdOf(url);
  if ("problem" in answer) return `${field} ${answer.problem}`;
  if (answer.chainId !== expected) return `${field} answers chain id ${answer.chainId}, expected ${expected}`;
  return undefined;
}

const clientOf = (network: NetworkConfig) =>
  createChainClient({ chainId: network.chainId, rpcUrls: network.rpcUrls, timeoutMs: TIMEOUT_MS });

/** Per flow name, why a configured flow cannot work on this network (its own declaration, src/flow.ts). */
async function unavailableFlows(
  name: NetworkName,
  network: NetworkConfig,
  client: ReturnType<typeof clientOf>,
): Promise<Record<string, string>> {
  const call = async (to: `0x${string}`, data: `0x${string}`) => (await client.call({ to, data })).data;
  const codeAt = (address: `0x${string}`) => client.getCode({ address });
  const reasons = await Promise.all(
    FLOWS.filter((flow: AnyFlow) => flowEnabledOn(flow, network)).map(
      async (flow: AnyFlow) =>
        [flow.capability ?? flow.name, await flow.unavailableOn?.(name, network, call, codeAt)] as const,
    ),
  );
  return Object.fromEntries(reasons.filter((entry): entry is readonly [string, string] => entry[1] !== undefined));
}

/**
 * One check the start makes, as `relay402 check` lists it: what was checked (naming the config field), and
 * either nothing wrong, a problem that stops the start, a flow it switches off on its network, or a note on how
 * the service works there.
 */
export type StartCheck = { check: string; problem?: string; off?: string; note?: string };

/** What a node without tracing changes, as the start check and the start log say it. */
export const UNTRACED_NOTE =
  "no: a swap reverted by a front-run in its own block cannot be told from the payer's doing, so such reverts refuse only the payer's swaps, never its payments";

const outcome = (check: string, problem: string | undefined): StartCheck => (problem ? { check, problem } : { check });

async function networkChecks(
  name: NetworkName,
  network: NetworkConfig,
): Promise<{
  checks: StartCheck[];
  unavailable?: Record<string, string>;
  tokenDomains?: Record<string, TokenDomain | null>;
  traces?: boolean;
}> {
  const field = `networks.${name}`;
  const rpcs = network.rpcUrls.map((url, i) => ({ field: `${field}.rpcUrls.${i}`, url }));
  const wallet = smartWalletSettingsOf(network);
  // The bundler only where smart wallets are enabled: the start checks only what is configured.
  const endpoints = [...rpcs, ...(wallet ? [{ field: `${field}.bundlerUrl`, url: wallet.bundlerUrl }] : [])];
  const answers = await Promise.all(endpoints.map(({ field, url }) => endpointProblem(field, url, network.chainId)));
  const checks = endpoints.map(({ field }, i) => outcome(`${field} answers chain id ${network.chainId}`, answers[i]));
  // The contracts are read through the RPCs, so only once they are known to be this network's chain.
  const rpcsOk = answers.slice(0, rpcs.length).every((problem) => problem === undefined);
  if (!rpcsOk) return { checks };
  // One client for the network's reads: its batches carry both sets of calls.
  const client = clientOf(network);
  // Only swaps read a mined transaction's revert cause, so only their networks are asked whether they trace.
  const swaps = hasCapability(network, "swaps");
  const [contracts, unavailable, traces] = await Promise.all([
    contractChecks(name, network, client),
    unavailableFlows(name, network, client),
    swaps ? tracesTransactions(client) : undefined,
  ]);
  checks.push(...contracts.checks);
  for (const [flow, reason] of Object.entries(unavailable)) {
    checks.push({ check: `${field} serves ${flow}`, off: reason });
  }
  if (traces !== undefined) {
    const check = `${field}.rpcUrls trace mined transactions (debug_traceTransaction), to read why a swap reverted`;
    checks.push(traces ? { check } : { check, note: UNTRACED_NOTE });
  }
  return { checks, unavailable, tokenDomains: contracts.tokenDomains, ...(traces !== undefined ? { traces } : {}) };
}

export type { TokenDomain, Wiring };

/**
 * Every check of the start's wiring, without stopping at the first: every RPC URL and the bundler (where smart
 * wallets are enabled) of each network must answer its chain id, and every configured contract and token must be
 * what the config says (src/chain/contract-checks.ts; their EIP-712 names are kept for /config). Problems
 * name config fields, never a URL (it may hold an API key). What only one flow needs (its `unavailableOn`) is
 * returned in `wiring` instead: it switches that flow off on its network.
 */
export async function runStartChecks(config: Config): Promise<{ checks: StartCheck[]; wiring: Wiring }> {
  const perNetwork = await Promise.all(
    NETWORKS.map(async (name) => {
      const network = config.networks[name];
      return [name, network ? await networkChecks(name, network) : { checks: [] }] as const;
    }),
  );
  const unavailable: Wiring["unavailable"] = {};
  const tokenDomains: NonNullable<Wiring["tokenDomains"]> = {};
  const tracing: NonNullable<Wiring["tracing"]> = {};
  for (const [name, result] of perNetwork) {
    if ("tokenDomains" in result && result.tokenDomains) tokenDomains[name] = result.tokenDomains;
    if (result.unavailable && Object.keys(result.unavailable).length > 0) unavailable[name] = result.unavailable;
    if ("traces" in result && result.traces !== undefined) tracing[name] = result.traces;
  }
  return {
    checks: perNetwork.flatMap(([, result]) => result.checks),
    wiring: { unavailable, tokenDomains, tracing },
  };
}

/** The problems among the checks, as the start refuses them: one single-line ConfigError naming every one. */
export function refuseProblems(checks: readonly StartCheck[]): void {
  const problems = checks.flatMap((check) => (check.problem ? [check.problem] : []));
  if (problems.length > 0) throw new ConfigError(`start refused: ${problems.join("; ")}`, problems);
}

/** The start's wiring check (runStartChecks): refuses to start on any problem, else returns what it learned. */
export async function checkWiring(config: Config): Promise<Wiring> {
  const { checks, wiring } = await runStartChecks(config);
  refuseProblems(checks);
  return wiring;
}
