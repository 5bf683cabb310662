import { relayerAbi } from "@relay402/client/wire/abis";
import { type Eip2612Permit, eip2612Abi, isPermitSignature, permitVrs } from "@relay402/client/wire/eip2612-permit";
import { type Address, encodeFunctionData, getAddress, type Hex, maxUint256 } from "viem";
import type { NetworkRuntime } from "../chain/networks";
import { permitSignedByOwner } from "../chain/token-domain";
import { ApiError } from "../errors";
import type { Authorization } from "./authorization";
import type { PaymentRules } from "./payment-rules";

/**
 * The EOA flow's zero-gas onboarding on a token with EIP-2612: a payer with no allowance to the relayer (and no
 * native coin to send an approve) signs a permit letting the relayer move the payment, and the relayer's
 * `transferWithAuthorizationWithPermit` submits it with the transfer in one transaction, paid by our executors.
 * The relayer tries the permit and accepts its failure when the allowance is there anyway (someone submitted the
 * permit first), so a front-run permit never turns a payable payment into a revert.
 */

/** `paymentPayload.permit` as the schema passed it. */
export type PermitBody = { value: string; deadline: string; signature: string };

/** The permit of the body, its owner the payer and its spender the relayer; a malformed one is a 400 naming the field. */
export function parseRelayerPermit(
  body: PermitBody,
  authorization: Authorization,
  relayer: Address,
  field = "paymentPayload.permit",
): Omit<Eip2612Permit, "nonce"> {
  const value = BigInt(body.value);
  const deadline = BigInt(body.deadline);
  if (value > maxUint256 || deadline > maxUint256)
    throw new ApiError("validation_error", "value and deadline are uint256", { field: `${field}.value` });
  if (!isPermitSignature(body.signature))
    throw new ApiError("signature_error", "the permit's signature is not 65 bytes of hex with v 27 or 28", {
      field: `${field}.signature`,
    });
  return {
    token: authorization.token,
    owner: authorization.from,
    spender: getAddress(relayer),
    value,
    deadline,
    signature: body.signature.toLowerCase() as Hex,
  };
}

export type RelayerPermit = ReturnType<typeof parseRelayerPermit>;

/**
 * Why the permit cannot grant the allowance the payment lacks, or null: a value below the payment (the relayer
 * reverts PermitValueTooLow), a deadline inside the settlement margin, a token not configured with EIP-2612, or a
 * signature that does not recover to the payer at the token's next nonce over its EIP-712 domain.
 */
export async function relayerPermitProblem(
  network: NetworkRuntime,
  rules: PaymentRules,
  permit: RelayerPermit,
  authorization: Authorization,
  now: bigint,
): Promise<{ message: string; field: string } | null> {
  if (permit.value < authorization.value)
    return { message: `the permit's value must be at least the payment's ${authorization.value}`, field: "value" };
  const margin = BigInt(rules.validBeforeMarginSeconds);
  if (permit.deadline < now + margin)
    return { message: `the permit's deadline must be at least ${margin} s after now`, field: "deadline" };
  if (!network.token(permit.token)?.eip2612)
    return { message: `${permit.token} is not configured with EIP-2612 permit on ${network.name}`, field: "signature" };
  const nonce = await network.client.readContract({
    address: permit.token,
    abi: eip2612Abi,
    functionName: "nonces",
    args: [permit.owner],
  });
  const { signed, domain } = await permitSignedByOwner(network, { ...permit, nonce });
  if (!signed)
    return {
      message: `the permit's signature does not recover to ${permit.owner}: sign EIP-2612 Permit (spender ${permit.spender}, nonce ${nonce}) over the token's EIP-712 domain ${domain ? `{ name: "${domain.name}", version: "${domain.version}" }` : ""}`,
      field: "signature",
    };
  return null;
}

/** The relayer's call that submits the permit, then pays the authorization. */
export function transferWithPermitCallData(authorization: Authorization, permit: RelayerPermit): Hex {
  const a = authorization;
  const { r, s, v } = permitVrs(permit.signature);
  return encodeFunctionData({
    abi: relayerAbi,
    functionName: "transferWithAuthorizationWithPermit",
    args: [
      a.token,
      a.from,
      a.to,
      a.value,
      a.validAfter,
      a.validBefore,
      a.nonce,
      a.signature,
      { value: permit.value, deadline: permit.deadline, v, r, s },
    ],
  });
}
