import { eip2612Abi } from "@relay402/client/wire/eip2612-permit";
import type { Address } from "viem";
import type { NetworkRuntime } from "./networks";

/**
 * A token's EIP-712 name and version, what its permits are signed over: as the start read them, else asked of the
 * token (ERC-5267) when the start did not read them (a service made without the start's wiring check); null when
 * the token tells neither.
 */
export async function tokenDomainOf(
  network: NetworkRuntime,
  token: Address,
): Promise<{ name: string; version: string } | null> {
  const known = network.tokenDomain(token);
  if (known) return known;
  return network.client
    .readContract({ address: token, abi: eip2612Abi, functionName: "eip712Domain" })
    .then(([, name, version]) => ({ name, version }))
    .catch(() => null);
}
