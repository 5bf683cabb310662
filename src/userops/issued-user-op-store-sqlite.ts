import { and, asc, desc, eq, gt, inArray, lt, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/open";
import { type IssuedUserOp, issuedUserOps } from "../db/schema";
import {
  finishedFigures,
  type IncognitoKeys,
  type IssuedUserOpStore,
  type NewIssuedUserOp,
  RECENT_ISSUED_LIMIT,
  type Reservation,
} from "./issued-user-op-store";

/** The leaf an incognito UserOp inserts, as the partial index issued_user_ops_leaf spells it. */
const LEAF_SQLITE = sql`coalesce(json_extract(${issuedUserOps.context}, '$.commitment'), json_extract(${issuedUserOps.context}, '$.changeCommitment'))`;

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
  const holder = (network: string, key: SQL, value: string, nowSeconds: number) =>
    db
      .select({ userOpHash: issuedUserOps.userOpHash, expiresAt: issuedUserOps.expiresAt })
      .from(issuedUserOps)
      .where(
        and(
          eq(issuedUserOps.network, network),
          eq(issuedUserOps.kind, "incognito"),
          sql`${key} = ${value.toLowerCase()}`,
          or(
            eq(issuedUserOps.status, "success"),
            and(inArray(issuedUserOps.status, ["issued", "sending"]), gt(issuedUserOps.expiresAt, nowSeconds)),
          ),
        ),
      )
      .get();
  const reservation = (network: string, keys: IncognitoKeys, nowSeconds: number): Reservation | undefined => {
    // The indexed expressions of 0008_incognito_leaves.sql and 0011_issued_user_ops_leaf.sql, written the same way.
    const spending = keys.nullifierHash
      ? holder(network, sql`json_extract(${issuedUserOps.context}, '$.nullifierHash')`, keys.nullifierHash, nowSeconds)
      : undefined;
    if (spending) return { ...spending, on: "nullifierHash" };
    const inserting = holder(network, LEAF_SQLITE, keys.leaf, nowSeconds);
    return inserting && { ...inserting, on: "leaf" };
  };
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
    inFlight: (sentBefore, limit) =>
      db
        .select()
        .from(issuedUserOps)
        .where(and(eq(issuedUserOps.status, "sending"), lt(issuedUserOps.sentAt, sentBefore)))
        .orderBy(asc(issuedUserOps.createdAt))
        .limit(limit)
        .all(),
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
    claim: (userOpHash) => move(userOpHash, "issued", { status: "sending", sentAt: now() }),
    release: (userOpHash) => {
      move(userOpHash, "sending", { status: "issued", sentAt: null });
    },
    finish(userOpHash, outcome) {
      db.update(issuedUserOps)
        .set({
          status: outcome.status,
          txHash: outcome.txHash ?? null,
          result: JSON.stringify(outcome.result),
          ...finishedFigures(outcome.mined),
          updatedAt: now(),
        })
        .where(eq(issuedUserOps.userOpHash, userOpHash))
        .run();
    },
    reservation,
    // One write transaction (BEGIN IMMEDIATE): another process on the same file waits for it instead of reading
    // between the check and the insert.
    issueUnlessReserved: (record, keys, nowSeconds) =>
      db.transaction(
        () => {
          const held = reservation(record.network, keys, nowSeconds);
          if (!held) issue(record);
          return held;
        },
        { behavior: "immediate" },
      ),
  };
}
