import { type Chain, defineChain } from "viem";

/**
 * A viem chain for a devnet node. Fees leave room for the base fee to climb: at start Alto deploys its
 * large simulation contracts, each block of them raises the base fee by up to 12.5%, and a transaction
 * priced at viem's default 1.2× the base fee could then wait forever under automine.
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
