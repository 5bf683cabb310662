import type { NetworkRuntime, Networks } from "../chain/networks";
import { presetOf } from "../networks";
import { permit2Served } from "./permit2-payment";

/** x402 v2 names a network by its CAIP-2 id (its chain id: the config's is checked against the preset's). */
export const v2NetworkId = (network: NetworkRuntime) => presetOf(network.name).x402.caip2;
/** x402 v1 names networks by name, where it has one (none for BNB Chain). */
const v1Name = (network: NetworkRuntime) => presetOf(network.name).x402.v1Name;

/**
 * Networks x402 is switched on for in config: their EIP-3009 tokens are paid with EIP-3009, every token of theirs
 * with Permit2 through x402's exact proxy where Permit2 and the proxy are deployed.
 */
export const x402Networks = (networks: Networks) => networks.all().filter((network) => network.config.x402?.enabled);

/** Whether a payment can settle on the network: an EIP-3009 token, or Permit2 and x402's proxy on the chain. */
const settlesSomething = async (network: NetworkRuntime) =>
  network.config.tokens.some((t) => t.eip3009) || (await permit2Served(network));

/** The network an x402 body names, if it is one served; null answers `invalid_network`. */
export function x402NetworkOf(networks: Networks, version: 1 | 2, wire: string): NetworkRuntime | null {
  return (
    x402Networks(networks).find((network) =>
      version === 2 ? v2NetworkId(network) === wire : v1Name(network) === wire,
    ) ?? null
  );
}

/** GET /supported: exactly the kinds this service settles, and who sends the transactions. */
export async function supportedKinds(networks: Networks) {
  const enabled = x402Networks(networks);
  const settles = await Promise.all(enabled.map(settlesSomething));
  const served = enabled.filter((_, i) => settles[i]);
  const kinds = served.flatMap((network) => {
    const v1 = v1Name(network);
    return [
      { x402Version: 2, scheme: "exact", network: v2NetworkId(network) },
      ...(v1 ? [{ x402Version: 1, scheme: "exact", network: v1 }] : []),
    ];
  });
  const signers = [...new Set(served.flatMap((network) => network.executor.addresses))];
  return { kinds, extensions: [] as string[], signers: { "eip155:*": signers } };
}
