import { type Address, concat, type Hex, numberToHex } from "viem";

/** One hop of a route: V2 pairs have no fee tier, V3 pools do. */
export type Hop = { tokenIn: Address; tokenOut: Address; fee?: number };

/**
 * The relayer's `SwapRoute.path`, packed as the routers take it: V2 = the token addresses (20 bytes each),
 * V3 = token, fee (3 bytes), token, ... The hops must chain (each tokenIn is the previous tokenOut).
 */
export function encodePath(kind: "v2" | "v3", hops: readonly Hop[]): Hex {
  const first = hops[0];
  if (!first) throw new Error("a route has at least one hop");
  const parts: Hex[] = [first.tokenIn];
  let previous = first.tokenIn;
  for (const hop of hops) {
    if (hop.tokenIn.toLowerCase() !== previous.toLowerCase()) throw new Error("route hops do not chain");
    if (kind === "v3") {
      if (hop.fee === undefined || !Number.isInteger(hop.fee) || hop.fee < 0 || hop.fee >= 2 ** 24) {
        throw new Error("a V3 hop needs a fee tier (uint24)");
      }
      parts.push(numberToHex(hop.fee, { size: 3 }));
    }
    parts.push(hop.tokenOut);
    previous = hop.tokenOut;
  }
  return concat(parts).toLowerCase() as Hex;
}
