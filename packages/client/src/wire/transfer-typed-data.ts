/** The relayer's signed EIP-712 types, the one definition that the service, /config, the client and tests use. */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: "token", type: "address" },
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

export const CANCEL_AUTHORIZATION_TYPES = {
  CancelAuthorization: [
    { name: "authorizer", type: "address" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

type SignedType = { primaryType: string; types: Record<string, { name: string; type: string }[]> };

/** As viem's `signTypedData` takes them (`types` and `primaryType`), for /config. */
export const SIGNED_TYPES: Record<"TransferWithAuthorization" | "CancelAuthorization", SignedType> = {
  TransferWithAuthorization: {
    primaryType: "TransferWithAuthorization",
    types: { TransferWithAuthorization: [...TRANSFER_WITH_AUTHORIZATION_TYPES.TransferWithAuthorization] },
  },
  CancelAuthorization: {
    primaryType: "CancelAuthorization",
    types: { CancelAuthorization: [...CANCEL_AUTHORIZATION_TYPES.CancelAuthorization] },
  },
};
