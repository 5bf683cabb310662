import { ApiError } from "../errors";

/** Who a revert is held against: an EOA payment's payer, or the owner of a paying smart wallet. */
export type DenyKind = "payer" | "owner";

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

export type DenyPolicy = {
  /** Refused once this many reverts were counted. */
  afterReverts: number;
  /** The count is forgotten this long after the subject's last revert. */
  windowSeconds: number;
  /** Unix seconds. */
  now: () => number;
};

/** Whether a stored count refuses its subject now (the same verdict on every database). */
export function deniedBy(policy: DenyPolicy, counter: { reverts: number; lastRevertAt: number } | undefined): boolean {
  if (!counter || counter.reverts < policy.afterReverts) return false;
  return policy.now() < counter.lastRevertAt + policy.windowSeconds;
}

export const PAYER_DENIED_MESSAGE = "payer refused after repeated failed settlements";
export const OWNER_DENIED_MESSAGE = "wallet owner refused after repeated failed settlements";

/** The wallet verify endpoints' answer for a denied owner: 400 validation_error on walletAddress. */
export async function assertOwnerNotDenied(deny: DenyCounters, network: string, owner: string): Promise<void> {
  if (await deny.isDenied(network, "owner", owner)) {
    throw new ApiError("validation_error", OWNER_DENIED_MESSAGE, { field: "walletAddress" });
  }
}
