import { and, asc, desc, eq, gte, sql } from "drizzle-orm";
import type { PgDb } from "../db/postgres/open";
import { incognitoLeaves, incognitoSync } from "../db/postgres/schema";
import type { AsyncLeafStore, Leaf } from "./leaf-store";

const INSERT_CHUNK = 1_000;

type Tx = Parameters<Parameters<PgDb["transaction"]>[0]>[0];

/**
 * The leaf store on PostgreSQL, for several instances on one database whose indexers all read the same pool into
 * the same rows. Each write is one transaction that first locks the pool's cursor row (`FOR UPDATE`), so appends
 * and rewinds of one pool are serialised across instances, and then checks the leaf-store.ts contract: an append
 * whose range no longer starts at the cursor (another instance stored it first, or rewound meanwhile), or whose
 * first leaf is not the next index, stores nothing and answers false. Leaf inserts are `ON CONFLICT DO NOTHING`
 * besides. A reader's view (`view`) is one REPEATABLE READ snapshot.
 */
export function createLeafStorePostgres(db: PgDb): AsyncLeafStore {
  const key = (network: string, pool: string) =>
    and(eq(incognitoLeaves.network, network), eq(incognitoLeaves.pool, pool.toLowerCase()));
  const syncKey = (network: string, pool: string) =>
    and(eq(incognitoSync.network, network), eq(incognitoSync.pool, pool.toLowerCase()));
  const row = (leaf: typeof incognitoLeaves.$inferSelect): Leaf => ({
    leafIndex: leaf.leafIndex,
    commitment: leaf.commitment,
    root: leaf.root,
    blockNumber: leaf.blockNumber,
  });
  const lastOf = async (tx: PgDb | Tx, network: string, pool: string) => {
    const [leaf] = await tx
      .select()
      .from(incognitoLeaves)
      .where(key(network, pool))
      .orderBy(desc(incognitoLeaves.leafIndex))
      .limit(1);
    return leaf ? row(leaf) : undefined;
  };
  const pageOf = async (tx: PgDb | Tx, network: string, pool: string, from: number, limit: number) =>
    (
      await tx
        .select()
        .from(incognitoLeaves)
        .where(and(key(network, pool), gte(incognitoLeaves.leafIndex, from)))
        .orderBy(asc(incognitoLeaves.leafIndex))
        .limit(limit)
    ).map(row);

  return {
    async nextBlock(network, pool) {
      const [cursor] = await db
        .select({ nextBlock: incognitoSync.nextBlock })
        .from(incognitoSync)
        .where(syncKey(network, pool));
      return cursor?.nextBlock;
    },
    append(network, pool, leaves, fromBlock, nextBlock) {
      const lowerPool = pool.toLowerCase();
      const updatedAt = new Date().toISOString();
      return db.transaction(async (tx) => {
        // A pool never synced has no row to lock: create it at the range's start (what "no cursor" means), once.
        await tx
          .insert(incognitoSync)
          .values({ network, pool: lowerPool, nextBlock: fromBlock, updatedAt })
          .onConflictDoNothing();
        const [cursor] = await tx
          .select({ nextBlock: incognitoSync.nextBlock })
          .from(incognitoSync)
          .where(syncKey(network, lowerPool))
          .for("update");
        if (cursor?.nextBlock !== fromBlock) return false;
        const first = leaves[0];
        if (first) {
          if (first.leafIndex !== ((await lastOf(tx, network, lowerPool))?.leafIndex ?? -1) + 1) return false;
          // In chunks: a statement takes at most 65,535 parameters (six a leaf).
          for (let i = 0; i < leaves.length; i += INSERT_CHUNK) {
            await tx
              .insert(incognitoLeaves)
              .values(leaves.slice(i, i + INSERT_CHUNK).map((leaf) => ({ network, pool: lowerPool, ...leaf })))
              .onConflictDoNothing();
          }
        }
        await tx.update(incognitoSync).set({ nextBlock, updatedAt }).where(syncKey(network, lowerPool));
        return true;
      });
    },
    async rewind(network, pool, fromBlock) {
      await db.transaction(async (tx) => {
        const [cursor] = await tx
          .select({ nextBlock: incognitoSync.nextBlock })
          .from(incognitoSync)
          .where(syncKey(network, pool))
          .for("update");
        if (!cursor) return; // never synced: no leaves either
        await tx.delete(incognitoLeaves).where(and(key(network, pool), gte(incognitoLeaves.blockNumber, fromBlock)));
        await tx
          .update(incognitoSync)
          .set({ nextBlock: sql`LEAST(${incognitoSync.nextBlock}, ${fromBlock})`, updatedAt: new Date().toISOString() })
          .where(syncKey(network, pool));
      });
    },
    async total(network, pool) {
      const leaf = await lastOf(db, network, pool);
      return leaf ? leaf.leafIndex + 1 : 0;
    },
    page: (network, pool, from, limit) => pageOf(db, network, pool, from, limit),
    last: (network, pool) => lastOf(db, network, pool),
    async contains(network, pool, commitment) {
      const found = await db
        .select({ leafIndex: incognitoLeaves.leafIndex })
        .from(incognitoLeaves)
        .where(and(key(network, pool), eq(incognitoLeaves.commitment, commitment.toLowerCase())))
        .limit(1);
      return found.length > 0;
    },
    view: (network, pool, from, limit) =>
      db.transaction(
        async (tx) => ({ last: await lastOf(tx, network, pool), leaves: await pageOf(tx, network, pool, from, limit) }),
        { isolationLevel: "repeatable read", accessMode: "read only" },
      ),
  };
}
