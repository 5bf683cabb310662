import type { Async } from "../db/async-port";
import type { IssuedUserOp } from "../db/schema";
import type { UserOpFigures } from "./outcome";

export type NewIssuedUserOp = Pick<
  IssuedUserOp,
  "userOpHash" | "network" | "kind" | "sender" | "owner" | "userOp" | "context" | "expiresAt"
>;

/** How many of a sender's issued UserOps a settle that matches none compares with to name the changed field. */
export const RECENT_ISSUED_LIMIT = 20;

/**
 * What an incognito UserOp holds while it may still execute: the nullifier it spends (an unshield) and the leaf it
 * inserts (a shield's commitment, an unshield's change commitment), lowercase 0x hex. A second UserOp holding
 * either would pass verify and revert on-chain, and the paymaster would pay for it.
 */
export type IncognitoKeys = { nullifierHash?: string; leaf: string };

/** The issued incognito UserOp that holds one of the keys asked about, and which one. */
export type Reservation = { userOpHash: string; expiresAt: number; on: "nullifierHash" | "leaf" };

/**
 * What verify issued and what settle made of it. This is the synchronous SQLite store; the flows take its async
 * port (`AsyncIssuedUserOpStore`: asAsync over this one, or issued-user-op-store-postgres.ts). Every state change
 * is one statement, so instances sharing one database never both claim a UserOp.
 */
export type IssuedUserOpStore = {
  /** Records an issue; issuing the very same UserOp again (same hash) keeps the first record. */
  issue(record: NewIssuedUserOp): void;
  find(userOpHash: string): IssuedUserOp | undefined;
  /**
   * The newest (at most RECENT_ISSUED_LIMIT) unsettled, unexpired issues of this kind for a sender on a network,
   * newest first: what a client changed is named against these, never against every row a sender ever had.
   */
  recentIssued(network: string, sender: string, kind: IssuedUserOp["kind"], now: number): IssuedUserOp[];
  /**
   * Deletes at most `limit` UserOps still `issued` whose paymaster data expired before `before` (unix seconds);
   * sent or settled ones stay, they answer replays. Returns how many went.
   */
  purgeExpired(before: number, limit: number): number;
  /**
   * UserOps sent (status `sending`) before `sentBefore` (ISO) and not concluded, oldest first, at most `limit`: what
   * the in-flight sweep (in-flight.ts) looks up on the chain. Read off the partial index issued_user_ops_unconcluded.
   */
  inFlight(sentBefore: string, limit: number): IssuedUserOp[];
  /** issued → sending, atomically: true for exactly one caller. Its time is the record's sent time. */
  claim(userOpHash: string): boolean;
  /** sending → issued: nothing reached the bundler, the UserOp may be settled again (the sent time is cleared). */
  release(userOpHash: string): void;
  /** The final state, with the executed UserOp's figures (`mined`) in the same statement; none when it never ran. */
  finish(userOpHash: string, outcome: FinishedUserOp): void;
  /**
   * The incognito UserOp on a network that holds one of these keys, if any: one that may still execute (issued or
   * being sent, before its paymaster data expires at `now`, unix seconds; after that the EntryPoint refuses it) or
   * that did. A failed one (reverted, rejected) or an expired one frees its keys. The nullifier is read off the
   * partial index issued_user_ops_nullifier, the leaf off issued_user_ops_leaf (a shield's `commitment`, an
   * unshield's `changeCommitment`: one expression, so a shield and an unshield of the same leaf collide too).
   */
  reservation(network: string, keys: IncognitoKeys, now: number): Reservation | undefined;
  /**
   * Issues an incognito UserOp unless one of its keys is already held (as reservation), in one step on every
   * instance: the reservation that blocked it, or nothing when it was issued. A check then an issue would let two
   * instances each find the keys free and issue one.
   */
  issueUnlessReserved(record: NewIssuedUserOp, keys: IncognitoKeys, now: number): Reservation | undefined;
};

export type FinishedUserOp = {
  status: "success" | "failed";
  txHash?: string | null;
  result: unknown;
  mined?: UserOpFigures;
};

/** The figure columns `finish` writes: null where the UserOp did not execute (or the outcome was not ours to read). */
export const finishedFigures = (mined: UserOpFigures | undefined) => ({
  gasUsed: mined?.gasUsed ?? null,
  effectiveGasPrice: mined?.effectiveGasPrice ?? null,
  actualGasCost: mined?.actualGasCost ?? null,
  actualGasUsed: mined?.actualGasUsed ?? null,
  minedAt: mined?.minedAt ?? null,
  blockNumber: mined?.blockNumber ?? null,
});

/** The port the flows take: every method answers a promise. */
export type AsyncIssuedUserOpStore = Async<IssuedUserOpStore>;

/** Unix seconds at which a UserOp was issued: no execution of it can be older. */
export const issuedAt = (record: Pick<IssuedUserOp, "createdAt">) => Math.floor(Date.parse(record.createdAt) / 1000);
