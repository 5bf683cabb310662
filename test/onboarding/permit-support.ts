import { EIP2612_PERMIT_TYPES, eip2612Abi, permitDomain } from "@relay402/client/wire/eip2612-permit";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { declareEip2612GasSponsoringExtension } from "@x402/extensions";
import { wrapFetchWithPayment } from "@x402/fetch";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devnetKeys } from "../../scripts/devnet/keys";
import type { NetworkName } from "../../scripts/devnet/start";
import { chainOf, randomAddress } from "../support/chain";
import { CAIP2, x402ClientOf } from "./funded-approve-support";

/** The devnet's token with only EIP-2612 permit (manifest kind "eip2612"), EIP-712 domain ("Permit USD", "1"). */
export function permitToken(network: NetworkName) {
  const token = chainOf(network).info.tokens.PUSD;
  if (token?.kind !== "eip2612") throw new Error(`no EIP-2612 token in the ${network} manifest`);
  return { address: token.address, decimals: token.decimals, domain: { name: "Permit USD", version: "1" } };
}

/** An EIP-2612 permit signed by hand over the token's domain (for the attack tests' altered permits). */
export async function signPermit(
  network: NetworkName,
  key: Hex,
  permit: { token: Address; spender: Address; value: bigint; nonce?: bigint; deadline?: bigint },
) {
  const c = chainOf(network);
  const account = privateKeyToAccount(key);
  const nonce =
    permit.nonce ??
    (await c.public.readContract({
      address: permit.token,
      abi: eip2612Abi,
      functionName: "nonces",
      args: [account.address],
    }));
  const deadline = permit.deadline ?? BigInt(Math.floor(Date.now() / 1000) + 600);
  const signature = await account.signTypedData({
    domain: permitDomain(permit.token, c.info.chainId, permitToken(network).domain),
    types: EIP2612_PERMIT_TYPES,
    primaryType: "Permit",
    message: { owner: account.address, spender: permit.spender, value: permit.value, nonce, deadline },
  });
  return { owner: account.address, nonce, deadline, signature };
}

/** What a merchant asks for: `amount` of the permit token, paid through Permit2, its EIP-712 domain in `extra`. */
export function permitRequirements(network: NetworkName, amount: bigint): PaymentRequirements {
  const token = permitToken(network);
  return {
    scheme: "exact",
    network: CAIP2[network],
    asset: token.address,
    amount: amount.toString(),
    payTo: randomAddress(),
    maxTimeoutSeconds: 300,
    extra: { assetTransferMethod: "permit2", ...token.domain },
  };
}

/** The merchant's 402 declares the extension (what @x402/extensions gives a merchant for it). */
export const SPONSORED_EXTENSIONS = declareEip2612GasSponsoringExtension();

/** A payment payload as @x402/evm signs it for the requirements, the merchant declaring eip2612GasSponsoring. */
export function sponsoredPayload(key: Hex, requirements: PaymentRequirements): Promise<PaymentPayload> {
  const resource = { url: "http://shop.test/item", description: "an item", mimeType: "text/plain" };
  return x402ClientOf(key).createPaymentPayload({
    x402Version: 2,
    resource,
    accepts: [requirements],
    extensions: SPONSORED_EXTENSIONS,
  } as never);
}

/** @x402/fetch for the key (the buyer side of a purchase). */
export const fetchFor = (key: Hex) => wrapFetchWithPayment(fetch, x402ClientOf(key));

/** The extension's info inside a payload, typed. */
export const sponsoringOf = (payload: PaymentPayload) =>
  (payload.extensions as { eip2612GasSponsoring: { info: Record<string, string> } }).eip2612GasSponsoring.info;

/** The payload with the extension's info changed (the rest, its Permit2 signature included, kept). */
export const withSponsoring = (payload: PaymentPayload, change: Record<string, string>): PaymentPayload => ({
  ...payload,
  extensions: {
    ...payload.extensions,
    eip2612GasSponsoring: {
      ...(payload.extensions as Record<string, Record<string, unknown>>).eip2612GasSponsoring,
      info: { ...sponsoringOf(payload), ...change },
    },
  },
});

/** The service's executors on the devnet: who must pay every gas of a sponsored payment. */
export const EXECUTORS = devnetKeys.executors.map((key) => privateKeyToAccount(key).address);

/** The native balances of the executors, summed. */
export async function executorsNative(network: NetworkName): Promise<bigint> {
  const c = chainOf(network);
  const balances = await Promise.all(EXECUTORS.map((address) => c.public.getBalance({ address })));
  return balances.reduce((sum, balance) => sum + balance, 0n);
}

/** What a mined transaction cost its sender. */
export async function gasCost(network: NetworkName, hash: Hex): Promise<bigint> {
  const receipt = await chainOf(network).public.getTransactionReceipt({ hash });
  return receipt.gasUsed * receipt.effectiveGasPrice;
}
