/**
 * The payer's signed swap (decisions.md "Swaps"), on the relayer's EIP-712 domain. Its field order is the
 * relayer's SwapAuthorization struct, whose hash the contract takes as keccak256(abi.encode(TYPEHASH, auth)).
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
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

/** The type string the relayer hashes (its SWAP_WITH_AUTHORIZATION_TYPEHASH), as /config shows it. */
export const SWAP_WITH_AUTHORIZATION_TYPE = `SwapWithAuthorization(${SWAP_WITH_AUTHORIZATION_TYPES.SwapWithAuthorization.map(
  (field) => `${field.type} ${field.name}`,
).join(",")})`;
