import { type Address, type Hex, parseAbi, toHex } from "viem";
import { CANONICAL } from "../chain/canonical";

/**
 * x402's `exact` scheme for tokens without EIP-3009: the payer approves Permit2 once, then signs a Permit2
 * PermitWitnessTransferFrom whose spender is x402's proxy and whose witness names the recipient; anyone may
 * submit it to the proxy, which moves exactly the permitted amount to the witness's `to`. The addresses are
 * the canonical ones x402 clients sign for (src/x402/permit2.test.ts checks them against @x402/evm).
 */
export const PERMIT2: Address = CANONICAL.permit2.address;
export const X402_EXACT_PERMIT2_PROXY: Address = CANONICAL.x402ExactPermit2Proxy.address;

/** The signed type, as @x402/evm 2.27 builds it (domain: name "Permit2", the chain, Permit2's address). */
export const permit2WitnessTypes = {
  PermitWitnessTransferFrom: [
    { name: "permitted", type: "TokenPermissions" },
    { name: "spender", type: "address" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
    { name: "witness", type: "Witness" },
  ],
  TokenPermissions: [
    { name: "token", type: "address" },
    { name: "amount", type: "uint256" },
  ],
  Witness: [
    { name: "to", type: "address" },
    { name: "validAfter", type: "uint256" },
  ],
} as const;

export const permit2Domain = (chainId: number) => ({ name: "Permit2", chainId, verifyingContract: PERMIT2 }) as const;

export const x402ExactPermit2ProxyAbi = parseAbi([
  "struct TokenPermissions { address token; uint256 amount; }",
  "struct PermitTransferFrom { TokenPermissions permitted; uint256 nonce; uint256 deadline; }",
  "struct Witness { address to; uint256 validAfter; }",
  "struct EIP2612Permit { uint256 value; uint256 deadline; bytes32 r; bytes32 s; uint8 v; }",
  "function PERMIT2() view returns (address)",
  "function settle(PermitTransferFrom permit, address owner, Witness witness, bytes signature)",
  "function settleWithPermit(EIP2612Permit permit2612, PermitTransferFrom permit, address owner, Witness witness, bytes signature)",
  "event Settled()",
  "event SettledWithPermit()",
]);

export const permit2Abi = parseAbi([
  "function nonceBitmap(address owner, uint256 wordPosition) view returns (uint256)",
  "function invalidateUnorderedNonces(uint256 wordPos, uint256 mask)",
  "function permitWitnessTransferFrom(((address token, uint256 amount) permitted, uint256 nonce, uint256 deadline) permit, (address to, uint256 requestedAmount) transferDetails, address owner, bytes32 witness, string witnessTypeString, bytes signature)",
]);

export const erc20Abi = parseAbi([
  "function balanceOf(address owner) view returns (uint256)",
  "function allowance(address owner, address spender) view returns (uint256)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
]);

/** Permit2's nonces are unordered: bit `nonce & 255` of word `nonce >> 8` in the owner's bitmap. */
export const nonceWord = (nonce: bigint) => nonce >> 8n;
export const nonceBit = (nonce: bigint) => 1n << (nonce & 255n);

/** A Permit2 nonce as the settlement record keeps it (32-byte hex, like EIP-3009's bytes32 nonces). */
export const nonceKey = (nonce: bigint): Hex => toHex(nonce, { size: 32 });
