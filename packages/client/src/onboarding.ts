import { type Address, encodeFunctionData, type Hash, type Hex, keccak256, type PublicClient } from "viem";
import { approveRelayer } from "./approve-relayer.js";
import { Relay402ClientError } from "./errors.js";
import type { NetworkConfig, TokenConfig } from "./get-config.js";
import type { PaymentPayload, SignerClient } from "./types.js";
import { erc20Abi } from "./wire/abis.js";
import { EIP2612_PERMIT_TYPES, eip2612Abi, permitDomain } from "./wire/eip2612-permit.js";

/**
 * How a payer gets the relayer the allowance its payment needs:
 * - `none`: the allowance is there;
 * - `approve`: the payer sends `approve(relayer, …)` itself (it holds the native coin for it);
 * - `permit`: the payer holds no native coin for that approve and the token has EIP-2612: it signs a permit to the
 *   relayer, which the service submits with the payment in one transaction, on its executors' gas;
 * - `fundedApprove`: the payer holds no native coin for that approve and the token has no permit (BSC USDT): it
 *   signs, without broadcasting, `approve(relayer, …)` at its next nonce within the service's caps (`/config` →
 *   `fundedApprove`); the service sends it exactly that approve's gas limit × max fee (less what it holds),
 *   broadcasts it, then settles. Refused by the client (`insufficient_gas`, `details.reason`) where the service's
 *   funded approves are off or the payment is below the token's `fundedApproveMinPayment`.
 */
export type Onboarding = "none" | "approve" | "permit" | "fundedApprove";

/** Gas of an ERC-20 approve when the node cannot estimate it: above a first approve of common tokens (~46,000). */
const APPROVE_GAS_FALLBACK = 60_000n;

/** What the payer's approve of the relayer would take: its gas limit and the node's fees. */
async function approveEstimate(parameters: {
  publicClient: PublicClient;
  payer: Address;
  token: Address;
  relayer: Address;
  value: bigint;
}) {
  const { publicClient, payer } = parameters;
  const [gas, fees] = await Promise.all([
    publicClient
      .estimateContractGas({
        account: payer,
        address: parameters.token,
        abi: erc20Abi,
        functionName: "approve",
        args: [parameters.relayer, parameters.value],
      })
      .catch(() => null),
    publicClient.estimateFeesPerGas(),
  ]);
  return { gas, fees };
}

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
  const [balance, { gas, fees }] = await Promise.all([
    publicClient.getBalance({ address: payer }),
    approveEstimate({
      publicClient,
      payer,
      token: token.address,
      relayer,
      value: parameters.approveAmount ?? parameters.amount,
    }),
  ]);
  if (balance >= (gas ?? APPROVE_GAS_FALLBACK) * fees.maxFeePerGas) return "approve";
  return token.eip2612 ? "permit" : "fundedApprove";
}

/** The refusal of a funded approve the service would not fund: the payer still lacks the gas for its approve. */
function noFundedApprove(payer: Address, reason: string, message: string, extra: Record<string, unknown> = {}) {
  return new Relay402ClientError(
    "insufficient_gas",
    `${payer} has no native coin for its approve of the relayer and ${message}: send it a little native coin, ` +
      "or pay from a smart wallet, whose UserOps relay402's paymaster sponsors",
    { address: payer, reason, ...extra },
  );
}

/**
 * The payer's `approve(relayer, value)` signed and not broadcast, for `paymentPayload.approval.signedTransaction`:
 * at its next nonce, with the node's gas estimate and fee, each within the service's caps (`/config` →
 * `fundedApprove`). Throws `insufficient_gas` (`details.reason`) where the service would not fund it: funded
 * approves off (`funded_approve_disabled`), `amount` (the payment) below the token's `fundedApproveMinPayment`
 * (`below_funded_approve_minimum`), or an approve needing more gas than `maxGas` (`funded_approve_over_caps`).
 */
export async function signFundedApprove(parameters: {
  signer: SignerClient;
  publicClient: PublicClient;
  token: Pick<TokenConfig, "address" | "fundedApproveMinPayment">;
  relayer: Address;
  /** The payment's value: the service funds only payments of at least the token's minimum. */
  amount: bigint;
  /** What to approve (default `amount`). */
  approveAmount?: bigint;
  caps: NetworkConfig["fundedApprove"];
}): Promise<Hex> {
  const { signer, publicClient, token, relayer, caps } = parameters;
  const payer = signer.account.address;
  if (!caps?.enabled)
    throw noFundedApprove(payer, "funded_approve_disabled", "the service does not fund approves on this network");
  const minimum = BigInt(token.fundedApproveMinPayment ?? 0);
  if (parameters.amount < minimum)
    throw noFundedApprove(
      payer,
      "below_funded_approve_minimum",
      `the service funds approves only for payments of at least ${minimum} (this one is ${parameters.amount})`,
      { minimum: minimum.toString() },
    );
  const value = parameters.approveAmount ?? parameters.amount;
  const maxGas = BigInt(caps.maxGas);
  const [nonce, { gas, fees }] = await Promise.all([
    publicClient.getTransactionCount({ address: payer, blockTag: "pending" }),
    approveEstimate({ publicClient, payer, token: token.address, relayer, value }),
  ]);
  if (gas !== null && gas > maxGas)
    throw noFundedApprove(payer, "funded_approve_over_caps", `its approve needs ${gas} gas, above the cap ${maxGas}`);
  const capFee = BigInt(caps.maxFeePerGas);
  const maxFeePerGas = fees.maxFeePerGas < capFee ? fees.maxFeePerGas : capFee;
  const priority = fees.maxPriorityFeePerGas ?? 0n;
  return signer.signTransaction({
    account: signer.account,
    chain: signer.chain ?? null,
    type: "eip1559",
    to: token.address,
    data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [relayer, value] }),
    nonce,
    // Funded at gas limit × max fee: the node's own estimate keeps what the payer keeps unspent small.
    gas: gas ?? (APPROVE_GAS_FALLBACK < maxGas ? APPROVE_GAS_FALLBACK : maxGas),
    maxFeePerGas,
    maxPriorityFeePerGas: priority < maxFeePerGas ? priority : maxFeePerGas,
  });
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
 * its permit signed (valid until `deadline`, the authorization's validBefore), or its approve signed for the service
 * to fund and broadcast; `payloadFields` go into `paymentPayload` beside the authorization. The one way `pay` and
 * the agents' payments onboard a payer.
 */
export async function onboardPayer(parameters: {
  signer: SignerClient;
  publicClient: PublicClient;
  token: Pick<TokenConfig, "address" | "eip2612" | "eip712" | "fundedApproveMinPayment">;
  chainId: number;
  relayer: Address;
  amount: bigint;
  /** What to approve or permit when the allowance is short (default `amount`). */
  approveAmount?: bigint;
  deadline: number;
  /** The network's caps on funded approves (`/config` → `fundedApprove`). */
  fundedApprove: NetworkConfig["fundedApprove"];
}): Promise<{
  onboarding: Onboarding;
  /** The approve's hash: sent by the payer (`approve`), or broadcast by the service at settle (`fundedApprove`). */
  approval?: Hash;
  payloadFields: Pick<PaymentPayload, "permit" | "approval">;
}> {
  const onboarding = await chooseOnboarding(parameters);
  const allowance = parameters.approveAmount ?? parameters.amount;
  switch (onboarding) {
    case "approve": {
      const approval = await approveRelayer({ ...parameters, token: parameters.token.address });
      return { onboarding, ...(approval ? { approval } : {}), payloadFields: {} };
    }
    case "permit":
      return { onboarding, payloadFields: { permit: await signRelayerPermit({ ...parameters, value: allowance }) } };
    case "fundedApprove": {
      const signedTransaction = await signFundedApprove({ ...parameters, caps: parameters.fundedApprove });
      return { onboarding, approval: keccak256(signedTransaction), payloadFields: { approval: { signedTransaction } } };
    }
    default:
      return { onboarding, payloadFields: {} };
  }
}
