type SignedType = { primaryType: string; types: Record<string, { name: string; type: string }[]> };

/** The relayer's EIP-712 types, as viem's `signTypedData` takes them (`types` and `primaryType`). */
export const SIGNED_TYPES: Record<"TransferWithAuthorization" | "CancelAuthorization", SignedType> = {
  TransferWithAuthorization: {
    primaryType: "TransferWithAuthorization",
    types: {
      TransferWithAuthorization: [
        { name: "token", type: "address" },
        { name: "from", type: "address" },
        { name: "to", type: "address" },
        { name: "value", type: "uint256" },
        { name: "validAfter", type: "uint256" },
        { name: "validBefore", type: "uint256" },
        { name: "nonce", type: "bytes32" },
      ],
    },
  },
  CancelAuthorization: {
    primaryType: "CancelAuthorization",
    types: {
      CancelAuthorization: [
        { name: "authorizer", type: "address" },
        { name: "nonce", type: "bytes32" },
      ],
    },
  },
};
