import { type Address, getAddress, type Hex, hexToNumber, isHex, parseAbi, recoverTypedDataAddress, slice } from "viem";

/**
 * EIP-2612's signed type (eips.ethereum.org/EIPS/eip-2612: Permit(address owner,address spender,uint256 value,
 * uint256 nonce,uint256 deadline)), signed over the token's own EIP-712 domain: the one definition the service
 * (x402's eip2612GasSponsoring, the relayer's permit path) and the client use.
 */
export const EIP2612_PERMIT_TYPES = {
  Permit: [
    { name: "owner", type: "address" },
    { name: "spender", type: "address" },
    { name: "value", type: "uint256" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

/** A permit token's calls, with ERC-5267's domain read (what its permits are signed over). */
export const eip2612Abi = parseAbi([
  "function nonces(address owner) view returns (uint256)",
  "function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)",
  "function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)",
]);

/** A signed permit of `owner` letting `spender` move `value` of `token` until `deadline`. */
export type Eip2612Permit = {
  token: Address;
  owner: Address;
  spender: Address;
  value: bigint;
  nonce: bigint;
  deadline: bigint;
  /** 65 bytes: r, s, v (v 27 or 28), as viem's signTypedData returns it. */
  signature: Hex;
};

/** The token's EIP-712 domain of a permit (its name and version, the chain, the token). */
export const permitDomain = (token: Address, chainId: number, domain: { name: string; version: string }) =>
  ({ name: domain.name, version: domain.version, chainId, verifyingContract: token }) as const;

/** Whether `signature` is 65 bytes of hex with v 27 or 28 (what a token's `permit(…, v, r, s)` takes). */
export const isPermitSignature = (signature: unknown): signature is Hex =>
  typeof signature === "string" &&
  isHex(signature, { strict: true }) &&
  signature.length === 132 &&
  [27, 28].includes(hexToNumber(slice(signature, 64, 65)));

/** The signature as the token's permit takes it. */
export const permitVrs = (signature: Hex) => ({
  r: slice(signature, 0, 32),
  s: slice(signature, 32, 64),
  v: hexToNumber(slice(signature, 64, 65)),
});

/** The address a permit's signature recovers to over the token's domain (ECDSA, as the token's `permit` checks it). */
export async function permitSigner(
  permit: Eip2612Permit,
  chainId: number,
  domain: { name: string; version: string },
): Promise<Address> {
  return getAddress(
    await recoverTypedDataAddress({
      domain: permitDomain(permit.token, chainId, domain),
      types: EIP2612_PERMIT_TYPES,
      primaryType: "Permit",
      message: {
        owner: permit.owner,
        spender: permit.spender,
        value: permit.value,
        nonce: permit.nonce,
        deadline: permit.deadline,
      },
      signature: permit.signature,
    }),
  );
}
