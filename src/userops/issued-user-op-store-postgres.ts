import { and, asc, desc, eq, gt, inArray, lt, or, type SQL, sql } from "drizzle-orm";
import type { PgDb } from "../db/postgres/open";
import { issuedUserOps } from "../db/postgres/schema";
import type { IssuedUserOp } from "../db/schema";
import {
  type AsyncIssuedUserOpStore,
  finishedFigures,
  type IncognitoKeys,
  type NewIssuedUserOp,
  RECENT_ISSUED_LIMIT,
  type Reservation,
} from "./issued-user-op-store";

/**
 * The issued-UserOp store of issued-user-op-store.ts on PostgreSQL, for several instances on one database: the
 * same port with promises, the same rows (the SQLite row type: the two schemas are one,
 * test/db/postgres-schema.test.ts). Every state change is one statement:
 * - the claim (issued → sending) a conditional `UPDATE … WHERE status = 'issued' RETURNING`: under READ COMMITTED
 *   a second claimer waits for the first one's row lock, then re-checks the condition on the committed row and
 *   updates nothing, so exactly one caller on any instance gets true;
 * - the issue `INSERT … ON CONFLICT DO NOTHING` (the same UserOp issued twice keeps the first record);
 * - the purge one `WITH expired AS MATERIALIZED (SELECT … LIMIT n FOR UPDATE SKIP LOCKED) DELETE … USING expired
 *   WHERE … AND status = 'issued'`: instances purging at once take different rows, and a row claimed meanwhile
 *   is re-checked and stays;
 * - an incognito issue unless its nullifier or leaf is reserved one transaction that first takes an advisory lock
 *   on the network and each key (in one order, so two issues never wait for each other's second lock): a second
 *   instance's check waits for the first one's insert to commit, then finds it (READ COMMITTED: every statement
 *   reads what was committed before it started).
 */
export function createIssuedUserOpStorePostgres(db: PgDb): AsyncIssuedUserOpStore {
  const t = issuedUserOps;
  const now = () => new Date().toISOString();
  type Tx = Pick<PgDb, "insert" | "select">;
  const insert = async (q: Tx, record: NewIssuedUserOp) => {
    const time = now();
    await q
      .insert(t)
      .values({
        ...record,
        sender: record.sender.toLowerCase(),
        owner: record.owner.toLowerCase(),
        status: "issued",
        createdAt: time,
        updatedAt: time,
      })
      .onConflictDoNothing({ target: t.userOpHash });
  };
  const holder = async (q: Tx, network: string, key: SQL, value: string, nowSeconds: number) => {
    const [row] = await q
      .select({ userOpHash: t.userOpHash, expiresAt: t.expiresAt })
      .from(t)
      .where(
        and(
          eq(t.network, network),
          eq(t.kind, "incognito"),
          sql`${key} = ${value.toLowerCase()}`,
          or(eq(t.status, "success"), and(inArray(t.status, ["issued", "sending"]), gt(t.expiresAt, nowSeconds))),
        ),
      )
      .limit(1);
    return row;
  };
  const reservation = async (
    q: Tx,
    network: string,
    keys: IncognitoKeys,
    nowSeconds: number,
  ): Promise<Reservation | undefined> => {
    // The expressions of the partial indexes issued_user_ops_nullifier and issued_user_ops_leaf, written the same way.
    const spending = keys.nullifierHash
      ? await holder(q, network, sql`(${t.context}::jsonb ->> 'nullifierHash')`, keys.nullifierHash, nowSeconds)
      : undefined;
    if (spending) return { ...spending, on: "nullifierHash" };
    const leaf = sql`(coalesce(${t.context}::jsonb ->> 'commitment', ${t.context}::jsonb ->> 'changeCommitment'))`;
    const inserting = await holder(q, network, leaf, keys.leaf, nowSeconds);
    return inserting && { ...inserting, on: "leaf" };
  };
  const move = async (userOpHash: string, from: IssuedUserOp["status"], set: Partial<IssuedUserOp>) =>
    (
      await db
        .update(t)
        .set({ ...set, updatedAt: now() })
        .where(and(eq(t.userOpHash, userOpHash), eq(t.status, from)))
        .returning({ userOpHash: t.userOpHash })
    ).length === 1;
  return {
    issue: (record) => insert(db, record),
    async find(userOpHash) {
      const [row] = await db.select().from(t).where(eq(t.userOpHash, userOpHash));
      return row;
    },
    inFlight: (sentBefore, limit) =>
      db
        .select()
        .from(t)
        .where(and(eq(t.status, "sending"), lt(t.sentAt, sentBefore)))
        .orderBy(asc(t.createdAt))
        .limit(limit),
    recentIssued: (network, sender, kind, nowSeconds) =>
      db
        .select()
        .from(t)
        .where(
          and(
            eq(t.network, network),
            eq(t.sender, sender.toLowerCase()),
            eq(t.status, "issued"),
            gt(t.expiresAt, nowSeconds),
            eq(t.kind, kind),
          ),
        )
        // As on SQLite: latest expiry first is newest first, read off issued_user_ops_recent.
        .orderBy(desc(t.expiresAt))
        .limit(RECENT_ISSUED_LIMIT),
    async purgeExpired(before, limit) {
      // The candidates in a MATERIALIZED CTE, locked and chosen once. As `DELETE … WHERE user_op_hash IN (SELECT …
      // LIMIT n FOR UPDATE SKIP LOCKED)` the planner may rescan the subquery for each row, and each rescan skips
      // the rows this very statement already deleted and takes the next ones: more than `limit` went (the suite
      // caught it).
      const deleted = await db.execute(sql`
        WITH expired AS MATERIALIZED (
          SELECT ${t.userOpHash} AS user_op_hash FROM ${t}
          WHERE ${t.status} = 'issued' AND ${t.expiresAt} < ${before}
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        DELETE FROM ${t} USING expired
        WHERE ${t.userOpHash} = expired.user_op_hash AND ${t.status} = 'issued'
        RETURNING ${t.userOpHash}`);
      return deleted.length;
    },
    claim: (userOpHash) => move(userOpHash, "issued", { status: "sending", sentAt: now() }),
    async release(userOpHash) {
      await move(userOpHash, "sending", { status: "issued", sentAt: null });
    },
    async finish(userOpHash, outcome) {
      await db
        .update(t)
        .set({
          status: outcome.status,
          txHash: outcome.txHash ?? null,
          result: JSON.stringify(outcome.result),
          ...finishedFigures(outcome.mined),
          updatedAt: now(),
        })
        .where(eq(t.userOpHash, userOpHash));
    },
    reservation: (network, keys, nowSeconds) => reservation(db, network, keys, nowSeconds),
    issueUnlessReserved: (record, keys, nowSeconds) =>
      db.transaction(async (tx) => {
        const locks = [
          ...(keys.nullifierHash
            ? [`issued_user_ops:spend:${record.network}:${keys.nullifierHash.toLowerCase()}`]
            : []),
          `issued_user_ops:leaf:${record.network}:${keys.leaf.toLowerCase()}`,
        ].sort();
        for (const key of locks) await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
        const held = await reservation(tx, record.network, keys, nowSeconds);
        if (!held) await insert(tx, record);
        return held;
      }),
  };
}
