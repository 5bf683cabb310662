import { type Chain, defineChain } from "viem";

/**
 * A viem chain for a devnet node. Fees get headroom over viem's default 1.2× the base fee so that a
 * script or test transaction still gets mined when the base fee climbs between pricing and sending.
 */
export function devnetChain(id: number, name: string, rpcUrl: string): Chain {
  return defineChain({
    id,
    name,
    nativeCurrency: { name: "native", symbol: "NATIVE", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    fees: { baseFeeMultiplier: 4 },
  });
}
