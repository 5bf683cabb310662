import { factoryAbi } from "@relay402/client/wire/abis";
import { type Address, getAddress, type Hex, keccak256, type PublicClient, stringToBytes } from "viem";
import { MULTICALL3 } from "../chain/addresses";

/** keccak256(utf8(prefix + "-" + reverse(checksumAddress(owner) without 0x))), as decisions.md fixes it. */
export function masterSalt(prefix: string, owner: string): Hex {
  const reversed = [...getAddress(owner).slice(2)].reverse().join("");
  return keccak256(stringToBytes(`${prefix}-${reversed}`));
}

/** The factory's CREATE2 addresses of (owner, salt) for every salt, in one eth_call through Multicall3. */
export async function walletAddresses(
  client: PublicClient,
  factory: Address,
  owner: Address,
  salts: readonly Hex[],
): Promise<Address[]> {
  const results = await client.multicall({
    multicallAddress: MULTICALL3,
    allowFailure: false,
    contracts: salts.map((salt) => ({
      address: factory,
      abi: factoryAbi,
      functionName: "getAddress" as const,
      args: [owner, salt] as const,
    })),
  });
  return results.map((address) => getAddress(address));
}

/** Which of `addresses` already hold code, read in one JSON-RPC batch. */
export async function deployedAddresses(client: PublicClient, addresses: readonly Address[]): Promise<Set<string>> {
  const codes = await Promise.all(addresses.map((address) => client.getCode({ address })));
  return new Set(addresses.filter((_, i) => (codes[i] ?? "0x") !== "0x").map((address) => address.toLowerCase()));
}
