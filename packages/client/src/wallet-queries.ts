import type { Address } from "viem";
import type { Relay402Client } from "./client.js";
import type { ClaimResult, MasterWallet, NetworkName, WalletList } from "./types.js";

/** `GET /wallet/:owner`: the owner's deployments (master and sub wallets), on one network or both. */
export function getWallets(client: Relay402Client, owner: Address, network?: NetworkName): Promise<WalletList> {
  return client.get<WalletList>(`/wallet/${owner}${network ? `?network=${network}` : ""}`);
}

/** `GET /wallet/:owner/master`: the owner's master wallet address (the same on every network) and its state. */
export function getMasterWallet(client: Relay402Client, owner: Address): Promise<MasterWallet> {
  return client.get<MasterWallet>(`/wallet/${owner}/master`);
}

export type ClaimParameters = { paymentTxHash?: `0x${string}`; payerAddress?: Address; network?: NetworkName };

/**
 * `POST /wallet/claim` (public): completes deployments and fundings whose fee was paid. Not retried by the
 * client: a pending answer carries `details.retryAfter`, when claiming again can do something.
 */
export function claim(client: Relay402Client, parameters: ClaimParameters): Promise<ClaimResult> {
  return client.post<ClaimResult>("/wallet/claim", parameters);
}
