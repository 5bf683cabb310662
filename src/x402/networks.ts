import type { NetworkRuntime, Networks } from "../chain/networks";
import { presetOf } from "../networks";
import { supportedExtensions } from "./extensions";
import { permit2Served } from "./permit2-payment";

/** x402 v2 names a network by its CAIP-2 id (its chain id: the config's is checked against the preset's). */
export const v2NetworkId = (network: NetworkRuntime) => presetOf(network.name).x402.caip2;
/** x402 v1 names networks by name, where it has one (none for BNB Chain). */
const v1Name = (network: NetworkRuntime) => presetOf(network.name).x402.v1Name;

/**
 * Networks x402 is switched on for in config: their EIP-3009 tokens are paid with EIP-3009, every token of theirs
 * with Permit2 through x402's exact proxy where Permit2 and the proxy are deployed.
 */
export const x402Networks = (networks: Networks) =>
  networks.all().filter((network) => network.capabilities.includes("x402"));

/**
 * The tokens a payment can settle in on the network, as a kind's `extra` lists them: EIP-3009 tokens with their own
 * transferWithAuthorization, every other token through Permit2 and x402's proxy where both are on the chain. Name and
 * version are the token's EIP-712 domain as the start read it (null: the token has none).
 */
async function servedAssets(network: NetworkRuntime) {
  const permit2 = await permit2Served(network);
  return network.config.tokens
    .filter((token) => token.eip3009 || permit2)
    .map((token) => {
      const domain = network.tokenDomain(token.address);
      return {
        asset: token.address,
        symbol: token.symbol,
        decimals: token.decimals,
        name: domain?.name ?? null,
        version: domain?.version ?? null,
        assetTransferMethod: token.eip3009 ? ("eip3009" as const) : ("permit2" as const),
      };
    });
}

/** What x402 takes on a network, as /supported lists it; none where x402 is off. */
export const x402AssetsOf = (network: NetworkRuntime) =>
  network.capabilities.includes("x402") ? servedAssets(network) : Promise.resolve([]);

/** The network an x402 body names, if it is one served; null answers `invalid_network`. */
export function x402NetworkOf(networks: Networks, version: 1 | 2, wire: string): NetworkRuntime | null {
  return (
    x402Networks(networks).find((network) =>
      version === 2 ? v2NetworkId(network) === wire : v1Name(network) === wire,
    ) ?? null
  );
}

/** GET /supported: exactly the kinds this service settles (with the assets each takes), and who sends them. */
export async function supportedKinds(networks: Networks) {
  const enabled = x402Networks(networks);
  const assets = await Promise.all(enabled.map(servedAssets));
  const served = enabled
    .map((network, i) => ({ network, assets: assets[i] ?? [] }))
    .filter(({ assets }) => assets.length > 0);
  const kinds = served.flatMap(({ network, assets }) => {
    const v1 = v1Name(network);
    const extra = { assets };
    return [
      { x402Version: 2, scheme: "exact", network: v2NetworkId(network), extra },
      ...(v1 ? [{ x402Version: 1, scheme: "exact", network: v1, extra }] : []),
    ];
  });
  const signers = [...new Set(served.flatMap(({ network }) => network.executor.addresses))];
  return { kinds, extensions: supportedExtensions(enabled, served), signers: { "eip155:*": signers } };
}
