import { and, asc, desc, eq, gte } from "drizzle-orm";
import type { Db } from "../db/open";
import { incognitoLeaves, incognitoSync } from "../db/schema";

/** One insert into the pool's tree, as its `LeafInserted` event says. Hex fields are 0x-prefixed 32 bytes. */
export type Leaf = { leafIndex: number; commitment: string; root: string; blockNumber: number };

/** The pool's leaves per network, and where their indexer resumes; SQLite here, any store with transactions would do. */
export type LeafStore = {
  /** The first block not read yet, or undefined before the first sync of this pool. */
  nextBlock(network: string, pool: string): number | undefined;
  /**
   * Stores the leaves read from blocks up to `nextBlock - 1` and moves the cursor, in one transaction: a crash
   * between the two can neither lose leaves nor store them twice. A leaf already stored is kept (same index).
   */
  append(network: string, pool: string, leaves: readonly Leaf[], nextBlock: number): void;
  /** Forgets the leaves of blocks from `fromBlock` on and rewinds the cursor there (a reorg replaced them). */
  rewind(network: string, pool: string, fromBlock: number): void;
  total(network: string, pool: string): number;
  /** Leaves from index `from` on, at most `limit`, in order. */
  page(network: string, pool: string, from: number, limit: number): Leaf[];
  /** The last stored leaf (its root is the pool's root after `total` inserts). */
  last(network: string, pool: string): Leaf | undefined;
};

export function createLeafStore(db: Db): LeafStore {
  const key = (network: string, pool: string) =>
    and(eq(incognitoLeaves.network, network), eq(incognitoLeaves.pool, pool.toLowerCase()));
  const row = (leaf: typeof incognitoLeaves.$inferSelect): Leaf => ({
    leafIndex: leaf.leafIndex,
    commitment: leaf.commitment,
    root: leaf.root,
    blockNumber: leaf.blockNumber,
  });
  return {
    nextBlock: (network, pool) =>
      db
        .select({ nextBlock: incognitoSync.nextBlock })
        .from(incognitoSync)
        .where(and(eq(incognitoSync.network, network), eq(incognitoSync.pool, pool.toLowerCase())))
        .get()?.nextBlock,
    append(network, pool, leaves, nextBlock) {
      const lowerPool = pool.toLowerCase();
      db.transaction((tx) => {
        for (const leaf of leaves) {
          tx.insert(incognitoLeaves)
            .values({ network, pool: lowerPool, ...leaf })
            .onConflictDoNothing()
            .run();
        }
        tx.insert(incognitoSync)
          .values({ network, pool: lowerPool, nextBlock, updatedAt: new Date().toISOString() })
          .onConflictDoUpdate({
            target: [incognitoSync.network, incognitoSync.pool],
            set: { nextBlock, updatedAt: new Date().toISOString() },
          })
          .run();
      });
    },
    rewind(network, pool, fromBlock) {
      const lowerPool = pool.toLowerCase();
      db.transaction((tx) => {
        tx.delete(incognitoLeaves)
          .where(and(key(network, lowerPool), gte(incognitoLeaves.blockNumber, fromBlock)))
          .run();
        tx.update(incognitoSync)
          .set({ nextBlock: fromBlock, updatedAt: new Date().toISOString() })
          .where(and(eq(incognitoSync.network, network), eq(incognitoSync.pool, lowerPool)))
          .run();
      });
    },
    // The indexer stores leaves without gaps from index 0, so the count is the last index + 1 (read off the key).
    total(network, pool) {
      const leaf = this.last(network, pool);
      return leaf ? leaf.leafIndex + 1 : 0;
    },
    page: (network, pool, from, limit) =>
      db
        .select()
        .from(incognitoLeaves)
        .where(and(key(network, pool), gte(incognitoLeaves.leafIndex, from)))
        .orderBy(asc(incognitoLeaves.leafIndex))
        .limit(limit)
        .all()
        .map(row),
    last: (network, pool) => {
      const leaf = db
        .select()
        .from(incognitoLeaves)
        .where(key(network, pool))
        .orderBy(desc(incognitoLeaves.leafIndex))
        .limit(1)
        .get();
      return leaf ? row(leaf) : undefined;
    },
  };
}
