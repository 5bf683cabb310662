import { type Address, type Hex, hashStruct } from "viem";

/**
 * The payer's signed swap (decisions.md "Swaps"), on the relayer's EIP-712 domain. Its field order is the
 * relayer's SwapAuthorization struct, whose hash the contract takes as keccak256(abi.encode(TYPEHASH, auth)).
 * `router` and `routeHash` (keccak256 of the packed path, wire/swap/path.ts) bind the route: the relayer refuses
 * any other, so nobody who sees the signature can run it through a pool of their own.
 */
export const SWAP_WITH_AUTHORIZATION_TYPES = {
  SwapWithAuthorization: [
    { name: "from", type: "address" },
    { name: "sellToken", type: "address" },
    { name: "buyToken", type: "address" },
    { name: "sellAmount", type: "uint256" },
    { name: "minBuyAmount", type: "uint256" },
    { name: "recipient", type: "address" },
    { name: "fee", type: "uint256" },
    { name: "router", type: "address" },
    { name: "routeHash", type: "bytes32" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

/** The type string the relayer hashes (its SWAP_WITH_AUTHORIZATION_TYPEHASH), as /config shows it. */
export const SWAP_WITH_AUTHORIZATION_TYPE = `SwapWithAuthorization(${SWAP_WITH_AUTHORIZATION_TYPES.SwapWithAuthorization.map(
  (field) => `${field.type} ${field.name}`,
).join(",")})`;

/** The SwapWithAuthorization's EIP-712 struct hash: what the relayer's SwapExecuted carries as authorizationHash. */
export const swapAuthorizationHash = (message: SwapAuthorizationMessage): Hex =>
  hashStruct({ data: message, primaryType: "SwapWithAuthorization", types: SWAP_WITH_AUTHORIZATION_TYPES });

/** The signed SwapWithAuthorization as the relayer's struct takes it (bigints, checksummed addresses). */
export type SwapAuthorizationMessage = {
  from: Address;
  sellToken: Address;
  buyToken: Address;
  sellAmount: bigint;
  minBuyAmount: bigint;
  recipient: Address;
  fee: bigint;
  router: Address;
  routeHash: Hex;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
};

/** The relayer's SwapOrder: what a swap sells, buys at least and pays to whom (a wallet's swapBatch takes it as is). */
export type SwapOrder = {
  sellToken: Address;
  buyToken: Address;
  sellAmount: bigint;
  minBuyAmount: bigint;
  recipient: Address;
  fee: bigint;
};
