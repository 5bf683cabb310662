import { ApiError } from "../errors";

/** Who a revert is held against: an EOA payment's payer, or the owner of a paying smart wallet. */
export type DenyKind = "payer" | "owner";

/**
 * Counts the on-chain reverts each payer or wallet owner caused, per network. Every revert costs the
 * executors or the paymaster gas, so a subject that keeps causing them is refused until its count decays.
 */
export type DenyCounters = {
  recordRevert(network: string, kind: DenyKind, address: string, reason: string): void;
  isDenied(network: string, kind: DenyKind, address: string): boolean;
};

export type DenyPolicy = {
  /** Refused once this many reverts were counted. */
  afterReverts: number;
  /** The count is forgotten this long after the subject's last revert. */
  windowSeconds: number;
  /** Unix seconds. */
  now: () => number;
};

export const PAYER_DENIED_MESSAGE = "payer refused after repeated failed settlements";
export const OWNER_DENIED_MESSAGE = "wallet owner refused after repeated failed settlements";

/** The wallet verify endpoints' answer for a denied owner: 400 validation_error on walletAddress. */
export function assertOwnerNotDenied(deny: DenyCounters, network: string, owner: string): void {
  if (deny.isDenied(network, "owner", owner)) {
    throw new ApiError("validation_error", OWNER_DENIED_MESSAGE, { field: "walletAddress" });
  }
}
