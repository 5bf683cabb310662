import { type Eip2612Permit, eip2612Abi, permitSigner } from "@relay402/client/wire/eip2612-permit";
import { type Address, isAddressEqual } from "viem";
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

/**
 * Whether an EIP-2612 permit, at the nonce it carries, is signed by its owner over the token's EIP-712 domain: what
 * the token's `permit` checks. The domain comes back for a refusal to name (null when the token tells none).
 */
export async function permitSignedByOwner(
  network: NetworkRuntime,
  permit: Eip2612Permit,
): Promise<{ signed: boolean; domain: { name: string; version: string } | null }> {
  const domain = await tokenDomainOf(network, permit.token);
  const signer = domain ? await permitSigner(permit, network.config.chainId, domain).catch(() => null) : null;
  return { signed: signer !== null && isAddressEqual(signer, permit.owner), domain };
}
