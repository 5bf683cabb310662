import { type Address, type Hex, keccak256, parseAbi, toHex } from "viem";
import { keccak256Hex } from "../chain/keccak";

/** EIP-3009 on the token itself (FiatToken v2.2's packed-signature overload) and ERC-5267's domain read. */
export const eip3009TokenAbi = parseAbi([
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "function balanceOf(address owner) view returns (uint256)",
  "function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
  "event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
]);

export const transferWithAuthorizationTypes = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

const word = (value: bigint) => value.toString(16).padStart(64, "0");
const addressWord = (address: string) => address.slice(2).toLowerCase().padStart(64, "0");
const TRANSFER_TYPE_HASH = keccak256(
  toHex(
    "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)",
  ),
).slice(2);
const DOMAIN_TYPE_HASH = keccak256(
  toHex("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
).slice(2);

/** Domain separators by (name, version, chainId, token); names come from request bodies, so the map is bounded. */
const domainSeparators = new Map<string, string>();
const MAX_DOMAINS = 1024;

function domainSeparator(domain: { name: string; version: string }, chainId: number, token: Address): string {
  const key = JSON.stringify([chainId, token.toLowerCase(), domain.name, domain.version]);
  let separator = domainSeparators.get(key);
  if (separator === undefined) {
    separator = keccak256(
      `0x${DOMAIN_TYPE_HASH}${keccak256(toHex(domain.name)).slice(2)}${keccak256(toHex(domain.version)).slice(2)}${word(BigInt(chainId))}${addressWord(token)}`,
    ).slice(2);
    if (domainSeparators.size >= MAX_DOMAINS) domainSeparators.clear();
    domainSeparators.set(key, separator);
  }
  return separator;
}

/**
 * The EIP-712 digest of a TransferWithAuthorization on the token's domain, as viem's hashTypedData computes it
 * (src/x402/eip3009.test.ts compares the two): two keccaks per payment (WebAssembly: src/chain/keccak.ts) and the
 * domain separator computed once per token and domain, where hashTypedData validated and hashed both type strings on
 * every call (a fifth of a verify's CPU).
 */
export function transferWithAuthorizationDigest(
  domain: { name: string; version: string },
  chainId: number,
  token: Address,
  message: { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex },
): Hex {
  const struct = keccak256Hex(
    `0x${TRANSFER_TYPE_HASH}${addressWord(message.from)}${addressWord(message.to)}${word(message.value)}${word(message.validAfter)}${word(message.validBefore)}${message.nonce.slice(2).toLowerCase()}`,
  ).slice(2);
  return keccak256Hex(`0x1901${domainSeparator(domain, chainId, token)}${struct}`);
}
