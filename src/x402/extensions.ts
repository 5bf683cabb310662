import type { Address } from "viem";
import type { NetworkRuntime } from "../chain/networks";

/** x402's extension of an EIP-2612 permit to Permit2 submitted with the settlement (src/x402/eip2612-sponsoring.ts). */
export const EIP2612_GAS_SPONSORING = "eip2612GasSponsoring";
/** x402's extension of a signed approve the facilitator funds and broadcasts (src/x402/erc20-approval.ts). */
export const ERC20_APPROVAL_GAS_SPONSORING = "erc20ApprovalGasSponsoring";
/** x402's idempotency key of a payment, bound to its payer and exact body (src/x402/payment-identifier.ts). */
export const PAYMENT_IDENTIFIER = "payment-identifier";

/** A JSON object of an x402 body, read field by field (bodies and their extensions are untrusted input). */
export type Json = Record<string, unknown>;
export const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null;

/**
 * GET /supported's `extensions`: eip2612GasSponsoring where a token paid through Permit2 (`served`: the networks
 * with the assets they take) has EIP-2612 permit; erc20ApprovalGasSponsoring where one of the x402 networks funds
 * approves; payment-identifier wherever x402 settles.
 */
export function supportedExtensions(
  x402Networks: readonly NetworkRuntime[],
  served: readonly { network: NetworkRuntime; assets: readonly { asset: Address; assetTransferMethod: string }[] }[],
): string[] {
  const permitSponsored = served.some(({ network, assets }) =>
    assets.some((asset) => asset.assetTransferMethod === "permit2" && network.token(asset.asset)?.eip2612),
  );
  const approvesFunded = x402Networks.some((network) => network.config.fundedApprove.enabled);
  return [
    ...(permitSponsored ? [EIP2612_GAS_SPONSORING] : []),
    ...(approvesFunded ? [ERC20_APPROVAL_GAS_SPONSORING] : []),
    ...(served.length > 0 ? [PAYMENT_IDENTIFIER] : []),
  ];
}
