import { ApiError } from "../errors";

/**
 * Who a revert is held against, and which flows its count refuses: "payer" (an EOA payer) and "owner" (the owner
 * of a paying smart wallet) count the reverts the subject controls and refuse every flow; "swap_payer" and
 * "swap_owner" count swaps the market made revert (a price moved below the signed minimum, as a front-runner can
 * make it) or whose cause could not be read (src/swap/revert-cause.ts), and refuse only new swaps, so that nobody
 * can get a victim's payments refused by moving a pool.
 */
export type DenyKind = "payer" | "owner" | "swap_payer" | "swap_owner";

/**
 * Counts the on-chain reverts each payer or wallet owner caused, per network. Every revert costs the
 * executors or the paymaster gas, so a subject that keeps causing them is refused until its count decays.
 * Kept in the database (SQLite: sqlite-deny-counters.ts, PostgreSQL: postgres-deny-counters.ts), so that every
 * instance on one database refuses the same subjects; hence every answer is a promise.
 */
export type DenyCounters = {
  /** One statement: concurrent reverts of one subject, from any instance, each count once. */
  recordRevert(network: string, kind: DenyKind, address: string, reason: string): Promise<void>;
  isDenied(network: string, kind: DenyKind, address: string): Promise<boolean>;
};

export type DenyLimits = {
  /** Refused once this many reverts were counted. */
  afterReverts: number;
  /** The count is forgotten this long after the subject's last revert. */
  windowSeconds: number;
};

/** The limits of the all-flows kinds, and `swaps` for the swap-only kinds. */
export type DenyPolicy = DenyLimits & {
  swaps: DenyLimits;
  /** Unix seconds. */
  now: () => number;
};

export const limitsOf = (policy: DenyPolicy, kind: DenyKind): DenyLimits =>
  kind === "swap_payer" || kind === "swap_owner" ? policy.swaps : policy;

/** Whether a stored count of a `kind` subject refuses it now (the same verdict on every database). */
export function deniedBy(
  policy: DenyPolicy,
  kind: DenyKind,
  counter: { reverts: number; lastRevertAt: number } | undefined,
): boolean {
  const limits = limitsOf(policy, kind);
  if (!counter || counter.reverts < limits.afterReverts) return false;
  return policy.now() < counter.lastRevertAt + limits.windowSeconds;
}

export const PAYER_DENIED_MESSAGE = "payer refused after repeated failed settlements";
export const OWNER_DENIED_MESSAGE = "wallet owner refused after repeated failed settlements";
export const OWNER_SWAPS_DENIED_MESSAGE = "wallet owner's swaps refused after repeated swaps reverted by a price move";

/**
 * The wallet verify endpoints' answer for a denied owner: 400 validation_error on the body's field that names the
 * paying wallet (`walletAddress`, or `paymentRequirements.deployment.payerAddress` at /deploy/wallet/verify).
 */
export async function assertOwnerNotDenied(
  deny: DenyCounters,
  network: string,
  owner: string,
  field = "walletAddress",
): Promise<void> {
  if (await deny.isDenied(network, "owner", owner)) {
    throw new ApiError("validation_error", OWNER_DENIED_MESSAGE, { field });
  }
}

/** The wallet swap verify's answer for an owner whose swaps are refused (market reverts), as assertOwnerNotDenied. */
export async function assertOwnerSwapsNotDenied(deny: DenyCounters, network: string, owner: string): Promise<void> {
  if (await deny.isDenied(network, "swap_owner", owner)) {
    throw new ApiError("validation_error", OWNER_SWAPS_DENIED_MESSAGE, { field: "walletAddress" });
  }
}
