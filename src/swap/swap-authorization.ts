import type { SwapBodySchema } from "@relay402/client/wire/swap/schemas";
import type { SwapAuthorizationMessage, SwapOrder } from "@relay402/client/wire/swap/typed-data";
import type { Static } from "@sinclair/typebox";
import { type Address, getAddress, type Hex, keccak256, maxUint256 } from "viem";
import { wellFormedSignature } from "../settlement/authorization";
import { invalid } from "../userops/invalid";

export type { SwapOrder };

/** The signed SwapWithAuthorization as the relayer's struct takes it (its one definition: packages/client/src/wire/swap/typed-data.ts). */
export type SwapAuthorization = SwapAuthorizationMessage;

/** The relayer's SwapRoute: the router and the packed path (packages/client/src/wire/swap/path.ts). */
export type SwapRoute = { router: Address; path: Hex };

export type SwapBody = Static<typeof SwapBodySchema>;

/** A decimal amount as a uint256 (the schema allows 78 digits, which can exceed it): else validation_error naming `field`. */
export function uint256(value: string, field: string): bigint {
  const amount = BigInt(value);
  if (amount > maxUint256) throw invalid(field, "exceeds uint256");
  return amount;
}

/**
 * The body's authorization and the route it signed: `swapPayload.path` must hash to the signed routeHash (the
 * service executes exactly that route, which the relayer checks again), else validation_error naming the path.
 */
export function parseSwapAuthorization(payload: SwapBody["swapPayload"]): {
  authorization: SwapAuthorization;
  signature: Hex;
  route: SwapRoute;
} {
  const a = payload.authorization;
  // Before anything reads the chain: a signature that is not hex would reach the simulation's encoding (a 500).
  const signature = wellFormedSignature(payload.signature, "swapPayload.signature");
  const path = payload.path.toLowerCase() as Hex;
  const routeHash = a.routeHash.toLowerCase() as Hex;
  if (keccak256(path) !== routeHash) {
    throw invalid("swapPayload.path", "its keccak256 is not the signed authorization.routeHash");
  }
  return {
    authorization: {
      from: getAddress(a.from),
      sellToken: getAddress(a.sellToken),
      buyToken: getAddress(a.buyToken),
      sellAmount: uint256(a.sellAmount, "swapPayload.authorization.sellAmount"),
      minBuyAmount: uint256(a.minBuyAmount, "swapPayload.authorization.minBuyAmount"),
      recipient: getAddress(a.recipient),
      fee: uint256(a.fee, "swapPayload.authorization.fee"),
      router: getAddress(a.router),
      routeHash,
      validAfter: BigInt(a.validAfter),
      validBefore: BigInt(a.validBefore),
      nonce: a.nonce.toLowerCase() as Hex,
    },
    signature,
    route: { router: getAddress(a.router), path },
  };
}
