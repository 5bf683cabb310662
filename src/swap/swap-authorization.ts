import type { Static } from "elysia";
import { type Address, getAddress, type Hex } from "viem";
import type { SwapBodySchema } from "./schemas";

/** The signed SwapWithAuthorization as the relayer's struct takes it (bigints, checksummed addresses). */
export type SwapAuthorization = {
  from: Address;
  sellToken: Address;
  buyToken: Address;
  sellAmount: bigint;
  minBuyAmount: bigint;
  recipient: Address;
  fee: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
};

export type SwapBody = Static<typeof SwapBodySchema>;

export function parseSwapAuthorization(payload: SwapBody["swapPayload"]): {
  authorization: SwapAuthorization;
  signature: Hex;
} {
  const a = payload.authorization;
  return {
    authorization: {
      from: getAddress(a.from),
      sellToken: getAddress(a.sellToken),
      buyToken: getAddress(a.buyToken),
      sellAmount: BigInt(a.sellAmount),
      minBuyAmount: BigInt(a.minBuyAmount),
      recipient: getAddress(a.recipient),
      fee: BigInt(a.fee),
      validAfter: BigInt(a.validAfter),
      validBefore: BigInt(a.validBefore),
      nonce: a.nonce.toLowerCase() as Hex,
    },
    signature: payload.signature as Hex,
  };
}
