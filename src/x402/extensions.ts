import type { NetworkRuntime } from "../chain/networks";

/** x402's extension of a signed approve the facilitator funds and broadcasts (src/x402/erc20-approval.ts). */
export const ERC20_APPROVAL_GAS_SPONSORING = "erc20ApprovalGasSponsoring";

/** GET /supported's `extensions`: those at least one of the x402 networks serves. */
export const supportedExtensions = (x402Networks: readonly NetworkRuntime[]): string[] =>
  x402Networks.some((network) => network.config.fundedApprove.enabled) ? [ERC20_APPROVAL_GAS_SPONSORING] : [];
