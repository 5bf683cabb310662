import { type Address, createPublicClient, getAddress, http } from "viem";
import { Relay402ClientError } from "../errors.js";
import type { TokenConfig } from "../get-config.js";
import type { NetworkName } from "../types.js";
import { erc20Abi } from "../wire/abis.js";

/**
 * What the agent's limits are measured in, read from the agent's own RPCs: a network's chain id and a token's
 * decimals. The relay402 service's /config is not asked: a hostile service answering `decimals: 18` for a 6-decimal
 * token would multiply every limit by 10^12, and a wrong chain id would get payments signed for another chain.
 */
export type ChainFacts = {
  chainIdOf(network: NetworkName): Promise<number>;
  decimalsOf(network: NetworkName, token: Address): Promise<number>;
};

/** Chain facts read once per network and token through `rpcUrls` (a network without an RPC here is refused). */
export function chainFactsFrom(rpcUrls: Partial<Record<NetworkName, string>>): ChainFacts {
  const chainIds = new Map<NetworkName, Promise<number>>();
  const decimals = new Map<string, Promise<number>>();
  const clientOf = (network: NetworkName) => {
    const rpcUrl = rpcUrls[network];
    if (!rpcUrl) {
      throw new Relay402ClientError("validation_error", `no RPC URL is configured for ${network}`, {
        field: "network",
      });
    }
    return createPublicClient({ transport: http(rpcUrl) });
  };
  // A failed read is not kept: the next call asks again.
  const once = <K>(cache: Map<K, Promise<number>>, key: K, read: () => Promise<number>) => {
    const known = cache.get(key);
    if (known) return known;
    const reading = read();
    cache.set(key, reading);
    reading.catch(() => cache.delete(key));
    return reading;
  };
  return {
    chainIdOf: (network) => once(chainIds, network, () => clientOf(network).getChainId()),
    decimalsOf: (network, token) =>
      once(decimals, `${network}:${getAddress(token)}`, () =>
        clientOf(network).readContract({ address: token, abi: erc20Abi, functionName: "decimals" }),
      ),
  };
}

/** `token` as /config lists it, with the decimals its own contract answers on the agent's RPC. */
export async function withChainDecimals(
  facts: ChainFacts,
  network: NetworkName,
  token: TokenConfig,
): Promise<TokenConfig> {
  return { ...token, decimals: await facts.decimalsOf(network, token.address) };
}
