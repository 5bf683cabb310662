import { paymasterAbi } from "@relay402/client/wire/abis";
import { type Address, isAddressEqual } from "viem";
import { ConfigError } from "../config/load";
import { type Config, NETWORKS, type NetworkConfig, type NetworkName } from "../config/schema";
import type { AnyFlow } from "../flow";
import { FLOWS } from "../flows";
import { createChainClient } from "./rpc";

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

/** The paymaster contract must verify the signer the service signs with, or every sponsored UserOp fails. */
async function paymasterSignerProblem(name: NetworkName, network: NetworkConfig): Promise<string | undefined> {
  const client = clientOf(network);
  const paymaster = network.contracts.paymaster;
  const configured = network.paymasterSigner.address;
  let onChain: Address;
  try {
    onChain = await client.readContract({ address: paymaster, abi: paymasterAbi, functionName: "verifyingSigner" });
  } catch {
    return `networks.${name}.contracts.paymaster has no verifyingSigner() (not a relay402 Paymaster on this chain?)`;
  }
  if (isAddressEqual(onChain, configured)) return undefined;
  return `networks.${name}.paymasterSignerKey is the key of ${configured}, but the paymaster verifies ${onChain}`;
}

const clientOf = (network: NetworkConfig) =>
  createChainClient({ chainId: network.chainId, rpcUrls: network.rpcUrls, timeoutMs: TIMEOUT_MS });

/** Per flow name, why a configured flow cannot work on this network (its own declaration, src/flow.ts). */
async function unavailableFlows(name: NetworkName, network: NetworkConfig): Promise<Record<string, string>> {
  const client = clientOf(network);
  const call = async (to: `0x${string}`, data: `0x${string}`) => (await client.call({ to, data })).data;
  const reasons = await Promise.all(
    FLOWS.filter((flow: AnyFlow) => flow.enabledOn?.(network) ?? true).map(
      async (flow: AnyFlow) => [flow.name, await flow.unavailableOn?.(name, network, call)] as const,
    ),
  );
  return Object.fromEntries(reasons.filter((entry): entry is readonly [string, string] => entry[1] !== undefined));
}

async function networkProblems(
  name: NetworkName,
  network: NetworkConfig,
): Promise<{ problems: string[]; unavailable?: Record<string, string> }> {
  const endpoints = await Promise.all([
    ...network.rpcUrls.map((url, i) => endpointProblem(`networks.${name}.rpcUrls.${i}`, url, network.chainId)),
    endpointProblem(`networks.${name}.bundlerUrl`, network.bundlerUrl, network.chainId),
  ]);
  const problems = endpoints.filter((problem) => problem !== undefined);
  // The paymaster is read through the RPCs, so only once they are known to be this network's chain.
  const rpcsOk = endpoints.slice(0, network.rpcUrls.length).every((problem) => problem === undefined);
  if (!rpcsOk) return { problems };
  const [signer, unavailable] = await Promise.all([
    paymasterSignerProblem(name, network),
    unavailableFlows(name, network),
  ]);
  if (signer) problems.push(signer);
  return { problems, unavailable };
}

/**
 * What the start learned that does not stop it: per network and flow, why the flow is unavailable there. A flow
 * is one feature among several, so wiring only it needs (a router the relayer does not whitelist, for swaps) turns
 * it off on that network (reported by /health, refused by the flow's routes with the reason) instead of refusing
 * to start the service.
 */
export type Wiring = { unavailable: Partial<Record<NetworkName, Record<string, string>>> };

/**
 * Refuses to start on wrong wiring: every RPC URL and the bundler of each network must answer its chain id, and
 * the paymaster signer key must be the one the paymaster contract verifies. Throws one single-line ConfigError
 * naming every problem by config field (never a URL: it may hold an API key). What only one flow needs (its
 * `unavailableOn`) is returned instead: it switches that flow off on its network.
 */
export async function checkWiring(config: Config): Promise<Wiring> {
  const perNetwork = await Promise.all(
    NETWORKS.map(async (name) => {
      const network = config.networks[name];
      return [name, network ? await networkProblems(name, network) : { problems: [] }] as const;
    }),
  );
  const problems = perNetwork.flatMap(([, result]) => result.problems);
  if (problems.length > 0) throw new ConfigError(`start refused: ${problems.join("; ")}`);
  const unavailable: Wiring["unavailable"] = {};
  for (const [name, result] of perNetwork) {
    if (result.unavailable && Object.keys(result.unavailable).length > 0) unavailable[name] = result.unavailable;
  }
  return { unavailable };
}
