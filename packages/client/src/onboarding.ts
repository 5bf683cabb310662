import type { Address, Hash, PublicClient } from "viem";
import { approveRelayer } from "./approve-relayer.js";
import type { TokenConfig } from "./get-config.js";
import type { PaymentPayload, SignerClient } from "./types.js";
import { erc20Abi } from "./wire/abis.js";
import { EIP2612_PERMIT_TYPES, eip2612Abi, permitDomain } from "./wire/eip2612-permit.js";

/**
 * How a payer gets the relayer the allowance its payment needs:
 * - `none`: the allowance is there;
 * - `approve`: the payer sends `approve(relayer, …)` itself (it holds the native coin for it);
 * - `permit`: the payer holds no native coin for that approve and the token has EIP-2612: it signs a permit to the
 *   relayer, which the service submits with the payment in one transaction, on its executors' gas.
 * A token without permit and a payer without gas has no answer here yet (`approve` then fails for lack of gas).
 */
export type Onboarding = "none" | "approve" | "permit";

/** Gas of an ERC-20 approve when the node cannot estimate it: above a first approve of common tokens (~46,000). */
const APPROVE_GAS_FALLBACK = 60_000n;

/** The payer's onboarding for a payment of `amount` of `token` through `relayer` (see `Onboarding`). */
export async function chooseOnboarding(parameters: {
  signer: SignerClient;
  publicClient: PublicClient;
  token: Pick<TokenConfig, "address" | "eip2612">;
  relayer: Address;
  amount: bigint;
  approveAmount?: bigint;
}): Promise<Onboarding> {
  const { publicClient, token, relayer } = parameters;
  const payer = parameters.signer.account.address;
  const allowance = await publicClient.readContract({
    address: token.address,
    abi: erc20Abi,
    functionName: "allowance",
    args: [payer, relayer],
  });
  if (allowance >= parameters.amount) return "none";
  if (!token.eip2612) return "approve";
  const [balance, gas, fees] = await Promise.all([
    publicClient.getBalance({ address: payer }),
    publicClient
      .estimateContractGas({
        account: payer,
        address: token.address,
        abi: erc20Abi,
        functionName: "approve",
        args: [relayer, parameters.approveAmount ?? parameters.amount],
      })
      .catch(() => APPROVE_GAS_FALLBACK),
    publicClient.estimateFeesPerGas(),
  ]);
  return balance >= gas * fees.maxFeePerGas ? "approve" : "permit";
}

/**
 * The payer's EIP-2612 permit letting `relayer` move `value` of the token until `deadline`, at the token's next
 * nonce, over its EIP-712 domain (from /config, else the token's own eip712Domain()): `paymentPayload.permit`.
 */
export async function signRelayerPermit(parameters: {
  signer: SignerClient;
  publicClient: PublicClient;
  token: Pick<TokenConfig, "address" | "eip712">;
  chainId: number;
  relayer: Address;
  value: bigint;
  deadline: number;
}): Promise<NonNullable<PaymentPayload["permit"]>> {
  const { signer, publicClient, token } = parameters;
  const owner = signer.account.address;
  const [nonce, domain] = await Promise.all([
    publicClient.readContract({ address: token.address, abi: eip2612Abi, functionName: "nonces", args: [owner] }),
    token.eip712 ??
      publicClient
        .readContract({ address: token.address, abi: eip2612Abi, functionName: "eip712Domain" })
        .then(([, name, version]) => ({ name, version })),
  ]);
  const signature = await signer.signTypedData({
    account: signer.account,
    domain: permitDomain(token.address, parameters.chainId, domain),
    types: EIP2612_PERMIT_TYPES,
    primaryType: "Permit",
    message: {
      owner,
      spender: parameters.relayer,
      value: parameters.value,
      nonce,
      deadline: BigInt(parameters.deadline),
    },
  });
  return { value: parameters.value.toString(), deadline: parameters.deadline.toString(), signature };
}

/**
 * Gets the relayer the allowance a payment needs, as chooseOnboarding says: the payer's approve sent (and mined),
 * or its permit signed for `paymentPayload.permit` (valid until `deadline`, the authorization's validBefore); the
 * one way `pay` and the agents' payments onboard a payer.
 */
export async function onboardPayer(parameters: {
  signer: SignerClient;
  publicClient: PublicClient;
  token: Pick<TokenConfig, "address" | "eip2612" | "eip712">;
  chainId: number;
  relayer: Address;
  amount: bigint;
  /** What to approve or permit when the allowance is short (default `amount`). */
  approveAmount?: bigint;
  deadline: number;
}): Promise<{ onboarding: Onboarding; approval?: Hash; permit?: NonNullable<PaymentPayload["permit"]> }> {
  const onboarding = await chooseOnboarding(parameters);
  const allowance = parameters.approveAmount ?? parameters.amount;
  if (onboarding === "approve")
    return { onboarding, approval: await approveRelayer({ ...parameters, token: parameters.token.address }) };
  if (onboarding === "permit")
    return { onboarding, permit: await signRelayerPermit({ ...parameters, value: allowance }) };
  return { onboarding };
}
