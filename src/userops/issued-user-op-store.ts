import { and, desc, eq, gt, inArray, lt, or, sql } from "drizzle-orm";
import type { Async } from "../db/async-port";
import type { Db } from "../db/open";
import { type IssuedUserOp, issuedUserOps } from "../db/schema";

export type NewIssuedUserOp = Pick<
  IssuedUserOp,
  "userOpHash" | "network" | "kind" | "sender" | "owner" | "userOp" | "context" | "expiresAt"
>;

/** How many of a sender's issued UserOps a settle that matches none compares with to name the changed field. */
export const RECENT_ISSUED_LIMIT = 20;

/** An issued unshield UserOp that spends a nullifier (IssuedUserOpStore.pendingSpend). */
export type PendingSpend = { userOpHash: string; expiresAt: number };

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
  /** issued → sending, atomically: true for exactly one caller. */
  claim(userOpHash: string): boolean;
  /** sending → issued: nothing reached the bundler, the UserOp may be settled again. */
  release(userOpHash: string): void;
  finish(userOpHash: string, outcome: { status: "success" | "failed"; txHash?: string | null; result: unknown }): void;
  /**
   * The issued unshield UserOp that already spends this nullifier (lowercase 0x hex) on a network, if any: one
   * that may still execute (issued or being sent, before its paymaster data expires at `now`, unix seconds; after
   * that the EntryPoint refuses it) or that did. Two sponsored spends of one note would both pass verify, and the
   * paymaster would pay for the second one's revert. A failed one (reverted, rejected) or an expired one leaves
   * the note spendable again. Read off the partial index issued_user_ops_nullifier (incognito rows only).
   */
  pendingSpend(network: string, nullifierHash: string, now: number): PendingSpend | undefined;
  /**
   * Issues an unshield UserOp unless its nullifier already has a pending spend (as pendingSpend), in one step on
   * every instance: the spend that blocked it, or nothing when it was issued. A check then an issue would let two
   * instances each find no spend and issue one.
   */
  issueUnlessSpent(record: NewIssuedUserOp, nullifierHash: string, now: number): PendingSpend | undefined;
};

/** The port the flows take: every method answers a promise. */
export type AsyncIssuedUserOpStore = Async<IssuedUserOpStore>;

export function createIssuedUserOpStore(db: Db): IssuedUserOpStore {
  const now = () => new Date().toISOString();
  const issue = (record: NewIssuedUserOp) => {
    const time = now();
    db.insert(issuedUserOps)
      .values({
        ...record,
        sender: record.sender.toLowerCase(),
        owner: record.owner.toLowerCase(),
        status: "issued",
        createdAt: time,
        updatedAt: time,
      })
      .onConflictDoNothing()
      .run();
  };
  const pendingSpend = (network: string, nullifierHash: string, nowSeconds: number): PendingSpend | undefined =>
    db
      .select({ userOpHash: issuedUserOps.userOpHash, expiresAt: issuedUserOps.expiresAt })
      .from(issuedUserOps)
      .where(
        and(
          eq(issuedUserOps.network, network),
          eq(issuedUserOps.kind, "incognito"),
          // The indexed expression of 0008_incognito_leaves.sql, written the same way.
          sql`json_extract(${issuedUserOps.context}, '$.nullifierHash') = ${nullifierHash.toLowerCase()}`,
          or(
            eq(issuedUserOps.status, "success"),
            and(inArray(issuedUserOps.status, ["issued", "sending"]), gt(issuedUserOps.expiresAt, nowSeconds)),
          ),
        ),
      )
      .get();
  const move = (userOpHash: string, from: IssuedUserOp["status"], set: Partial<IssuedUserOp>) =>
    db
      .update(issuedUserOps)
      .set({ ...set, updatedAt: now() })
      .where(and(eq(issuedUserOps.userOpHash, userOpHash), eq(issuedUserOps.status, from)))
      .returning({ userOpHash: issuedUserOps.userOpHash })
      .all().length === 1;
  return {
    issue,
    find: (userOpHash) => db.select().from(issuedUserOps).where(eq(issuedUserOps.userOpHash, userOpHash)).get(),
    recentIssued: (network, sender, kind, nowSeconds) =>
      db
        .select()
        .from(issuedUserOps)
        .where(
          and(
            eq(issuedUserOps.network, network),
            eq(issuedUserOps.sender, sender.toLowerCase()),
            eq(issuedUserOps.status, "issued"),
            gt(issuedUserOps.expiresAt, nowSeconds),
            eq(issuedUserOps.kind, kind),
          ),
        )
        // expiresAt is issue time plus the paymaster window: latest expiry first is newest first, read off the index.
        .orderBy(desc(issuedUserOps.expiresAt))
        .limit(RECENT_ISSUED_LIMIT)
        .all(),
    purgeExpired(before, limit) {
      const expired = db
        .select({ userOpHash: issuedUserOps.userOpHash })
        .from(issuedUserOps)
        .where(and(eq(issuedUserOps.status, "issued"), lt(issuedUserOps.expiresAt, before)))
        .limit(limit);
      return db
        .delete(issuedUserOps)
        .where(and(inArray(issuedUserOps.userOpHash, expired), eq(issuedUserOps.status, "issued")))
        .returning({ userOpHash: issuedUserOps.userOpHash })
        .all().length;
    },
    claim: (userOpHash) => move(userOpHash, "issued", { status: "sending" }),
    release: (userOpHash) => {
      move(userOpHash, "sending", { status: "issued" });
    },
    finish(userOpHash, outcome) {
      db.update(issuedUserOps)
        .set({
          status: outcome.status,
          txHash: outcome.txHash ?? null,
          result: JSON.stringify(outcome.result),
          updatedAt: now(),
        })
        .where(eq(issuedUserOps.userOpHash, userOpHash))
        .run();
    },
    pendingSpend,
    // One write transaction (BEGIN IMMEDIATE): another process on the same file waits for it instead of reading
    // between the check and the insert.
    issueUnlessSpent: (record, nullifierHash, nowSeconds) =>
      db.transaction(
        () => {
          const pending = pendingSpend(record.network, nullifierHash, nowSeconds);
          if (!pending) issue(record);
          return pending;
        },
        { behavior: "immediate" },
      ),
  };
}

/** Unix seconds at which a UserOp was issued: no execution of it can be older. */
export const issuedAt = (record: Pick<IssuedUserOp, "createdAt">) => Math.floor(Date.parse(record.createdAt) / 1000);
