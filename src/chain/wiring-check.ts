import { type Address, isAddressEqual } from "viem";
import { ConfigError } from "../config/load";
import { type Config, NETWORKS, type NetworkConfig, type NetworkName } from "../config/schema";
import { swapWiringProblem } from "../swap/swap-wiring";
import { paymasterAbi } from "./abis";
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

/** Why swaps cannot work on this network (router whitelisting, pool addresses), or undefined. */
async function swapProblem(name: NetworkName, network: NetworkConfig): Promise<string | undefined> {
  if (!network.swap) return undefined;
  const client = clientOf(network);
  return swapWiringProblem(
    name,
    network.contracts.relayer,
    network.swap,
    network.tokens.map((token) => token.address),
    async (to, data) => (await client.call({ to, data })).data,
  );
}

async function networkProblems(
  name: NetworkName,
  network: NetworkConfig,
): Promise<{ problems: string[]; swapUnavailable?: string }> {
  const endpoints = await Promise.all([
    ...network.rpcUrls.map((url, i) => endpointProblem(`networks.${name}.rpcUrls.${i}`, url, network.chainId)),
    endpointProblem(`networks.${name}.bundlerUrl`, network.bundlerUrl, network.chainId),
  ]);
  const problems = endpoints.filter((problem) => problem !== undefined);
  // The paymaster is read through the RPCs, so only once they are known to be this network's chain.
  const rpcsOk = endpoints.slice(0, network.rpcUrls.length).every((problem) => problem === undefined);
  if (!rpcsOk) return { problems };
  const [signer, swapUnavailable] = await Promise.all([
    paymasterSignerProblem(name, network),
    swapProblem(name, network),
  ]);
  if (signer) problems.push(signer);
  return { problems, ...(swapUnavailable ? { swapUnavailable } : {}) };
}

/**
 * What the start learned that does not stop it: per network, why swaps are unavailable there. Swaps are one
 * feature among several, so a router the relayer does not whitelist turns them off on that network (reported by
 * /health, refused by every swap route with the reason) instead of refusing to start the service.
 */
export type Wiring = { swapUnavailable: Partial<Record<NetworkName, string>> };

/**
 * Refuses to start on wrong wiring: every RPC URL and the bundler of each network must answer its chain id, and
 * the paymaster signer key must be the one the paymaster contract verifies. Throws one single-line ConfigError
 * naming every problem by config field (never a URL: it may hold an API key). Swap wiring problems (see
 * swap/swap-wiring.ts) are returned instead: they switch swaps off on their network.
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
  const swapUnavailable: Wiring["swapUnavailable"] = {};
  for (const [name, result] of perNetwork) if (result.swapUnavailable) swapUnavailable[name] = result.swapUnavailable;
  return { swapUnavailable };
}
