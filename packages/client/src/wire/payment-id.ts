import { type Address, encodeAbiParameters, getAddress, type Hex, keccak256 } from "viem";

/**
 * Where a signed payment's nonce lives: the relayer (EOA payments and EOA swaps), the token (x402 EIP-3009) or
 * Permit2 (x402 Permit2). One payer can hold the same nonce in all three, so the contract is part of the id.
 */
export type PaymentNonceSpace = {
  chainId: number | bigint;
  /** The contract whose nonce space the nonce is in. */
  contract: Address;
  payer: Address;
  /** A bytes32 nonce (relayer, EIP-3009) or a uint256 one (Permit2): both are one 32-byte word. */
  nonce: Hex | bigint;
};

/**
 * The payment's id, the same on every instance and retry, and computable by a client from its signed body before
 * it calls: `keccak256(abi.encode(uint256 chainId, address contract, address payer, uint256 nonce))`.
 * UserOp flows use their `userOpHash` instead.
 */
export function paymentIdOf({ chainId, contract, payer, nonce }: PaymentNonceSpace): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: "uint256" }, { type: "address" }, { type: "address" }, { type: "uint256" }],
      [BigInt(chainId), getAddress(contract), getAddress(payer), BigInt(nonce)],
    ),
  );
}
