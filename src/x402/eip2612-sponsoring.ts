// x402's `eip2612GasSponsoring` extension (@x402/extensions 2.27, @x402/evm's exact client): a payer without an
// allowance to Permit2 signs, beside its Permit2 payment, an EIP-2612 permit of the token letting Permit2 move the
// payment, and the facilitator submits both in one transaction, x402's proxy `settleWithPermit` (which tries the
// permit, ignores its failure, then settles: a permit someone submitted first leaves the allowance in place). The
// payer needs no native coin; the operator pays one transaction, as for any x402 payment.
import { type Eip2612Permit, eip2612Abi, isPermitSignature, permitVrs } from "@relay402/client/wire/eip2612-permit";
import { type Address, getAddress, isAddress, isAddressEqual } from "viem";
import type { NetworkRuntime } from "../chain/networks";
import { permitSignedByOwner } from "../chain/token-domain";
import type { PaymentRules } from "../settlement/payment-rules";
import { EIP2612_GAS_SPONSORING, isObject } from "./extensions";
import { PERMIT2 } from "./permit2";
import type { X402Refusal } from "./reasons";

const uint = (value: unknown) => (typeof value === "string" && /^[0-9]{1,78}$/.test(value) ? BigInt(value) : null);

export type SponsoringRead =
  | { ok: true; permit: Eip2612Permit | null }
  | { ok: false; refusal: X402Refusal; message: string };

/**
 * The permit in a v2 payload's `extensions`, null when none was signed: the merchant's declaration echoed back
 * without the client's fields (a payer that already allows Permit2 signs nothing) is no permit, as in @x402/evm's
 * facilitator. Fields present but malformed are a refusal.
 */
export function readEip2612Sponsoring(extensions: unknown): SponsoringRead {
  const extension = isObject(extensions) ? extensions[EIP2612_GAS_SPONSORING] : undefined;
  const info = isObject(extension) && isObject(extension.info) ? extension.info : null;
  const fields = ["from", "asset", "spender", "amount", "nonce", "deadline", "signature"] as const;
  if (!info || fields.some((field) => info[field] === undefined)) return { ok: true, permit: null };
  const amount = uint(info.amount);
  const nonce = uint(info.nonce);
  const deadline = uint(info.deadline);
  const { from, asset, spender, signature } = info;
  if (
    amount === null ||
    nonce === null ||
    deadline === null ||
    typeof from !== "string" ||
    !isAddress(from) ||
    typeof asset !== "string" ||
    !isAddress(asset) ||
    typeof spender !== "string" ||
    !isAddress(spender) ||
    !isPermitSignature(signature)
  )
    return {
      ok: false,
      refusal: "eip2612Format",
      message: `extensions.${EIP2612_GAS_SPONSORING}.info needs from, asset, spender, amount, nonce, deadline and a 65-byte signature`,
    };
  return {
    ok: true,
    permit: {
      token: getAddress(asset),
      owner: getAddress(from),
      spender: getAddress(spender),
      value: amount,
      nonce,
      deadline,
      signature: signature.toLowerCase() as Eip2612Permit["signature"],
    },
  };
}

type Refusal = { ok: false; refusal: X402Refusal; message: string };
const refuse = (refusal: X402Refusal, message: string): Refusal => ({ ok: false, refusal, message });

/**
 * The permit's own checks, before any chain read: signed by the payer, for the payment's token, to Permit2, for
 * exactly the Permit2 amount (x402's proxy reverts Permit2612AmountMismatch on any other value, so a larger one,
 * MaxUint256 included, could never settle), valid past the settlement margin, on a token configured with EIP-2612.
 */
export function eip2612FieldRefusal(
  network: NetworkRuntime,
  rules: PaymentRules,
  permit: Eip2612Permit,
  payment: { from: Address; token: Address; amount: bigint },
  now: bigint,
): Refusal | null {
  if (!isAddressEqual(permit.owner, payment.from))
    return refuse("eip2612From", "the EIP-2612 permit's from is not the Permit2 payer");
  if (!isAddressEqual(permit.token, payment.token))
    return refuse("eip2612Asset", "the EIP-2612 permit's asset is not the payment's token");
  if (!isAddressEqual(permit.spender, PERMIT2))
    return refuse("eip2612Spender", `the EIP-2612 permit's spender must be Permit2 (${PERMIT2})`);
  if (permit.value !== payment.amount)
    return refuse(
      "eip2612Amount",
      `the EIP-2612 permit's amount must equal the Permit2 amount ${payment.amount} (x402's proxy refuses any other)`,
    );
  const margin = BigInt(rules.validBeforeMarginSeconds);
  if (permit.deadline < now + margin)
    return refuse("eip2612Deadline", `the EIP-2612 permit's deadline must be at least ${margin} s after now`);
  if (!network.token(permit.token)?.eip2612)
    return refuse("eip2612NotServed", `${permit.token} is not configured with EIP-2612 permit on ${network.name}`);
  return null;
}

/** The token's next permit nonce of the payer, read with the verify's other reads (one JSON-RPC batch). */
export const permitNonce = (network: NetworkRuntime, permit: Eip2612Permit) =>
  network.client.readContract({ address: permit.token, abi: eip2612Abi, functionName: "nonces", args: [permit.owner] });

/**
 * When the payer's allowance to Permit2 is short, the permit must grant it: its nonce the token's next one and
 * its signature the payer's over the token's EIP-712 domain (what the token's `permit` checks). Either wrong, the
 * proxy's try of the permit fails and the settlement reverts for lack of allowance: x402's code for that.
 */
export async function eip2612ChainRefusal(
  network: NetworkRuntime,
  permit: Eip2612Permit,
  nextNonce: bigint,
): Promise<Refusal | null> {
  if (permit.nonce !== nextNonce)
    return refuse(
      "eip2612Permit",
      `the EIP-2612 permit's nonce is ${permit.nonce}, the token's next nonce of the payer is ${nextNonce}`,
    );
  if (!(await permitSignedByOwner(network, permit)).signed)
    return refuse(
      "eip2612Permit",
      "the EIP-2612 permit's signature does not recover to its from over the token's domain",
    );
  return null;
}

/** The proxy's EIP2612Permit argument. */
export const proxyPermitArgument = (permit: Eip2612Permit) => {
  const { r, s, v } = permitVrs(permit.signature);
  return { value: permit.value, deadline: permit.deadline, r, s, v };
};
