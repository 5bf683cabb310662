import { and, asc, desc, eq, gte, sql } from "drizzle-orm";
import type { Async } from "../db/async-port";
import type { Db } from "../db/open";
import { incognitoLeaves, incognitoSync } from "../db/schema";

/** One insert into the pool's tree, as its `LeafInserted` event says. Hex fields are 0x-prefixed 32 bytes. */
export type Leaf = { leafIndex: number; commitment: string; root: string; blockNumber: number };

/**
 * The pool's leaves per network, and where their indexer resumes: SQLite here (createLeafStore), PostgreSQL in
 * leaf-store-postgres.ts. Several instances on one database each run an indexer on the same rows, so every write
 * is a compare-and-set on the cursor in one transaction: a range is stored once, by whichever instance comes
 * first, and a range read before another instance's rewind is refused instead of stored past it. Invariant: the
 * stored leaves are the indices 0..total-1 without gaps, and every leaf of a block before the cursor is stored.
 */
export type LeafStore = {
  /** The first block not read yet, or undefined before the first sync of this pool. */
  nextBlock(network: string, pool: string): number | undefined;
  /**
   * Stores the leaves read from blocks [fromBlock, nextBlock - 1] (those from index `total` on) and moves the
   * cursor to `nextBlock`, in one transaction, only if the cursor is still at `fromBlock` (no cursor yet counts
   * as `fromBlock`) and the first leaf is the next index: answers whether it did. False, with nothing stored,
   * when another instance stored this range first or rewound meanwhile: the caller goes on from `nextBlock()`.
   */
  append(network: string, pool: string, leaves: readonly Leaf[], fromBlock: number, nextBlock: number): boolean;
  /**
   * Forgets the leaves of blocks from `fromBlock` on and rewinds the cursor there (a reorg replaced them), never
   * forward: a cursor another instance rewound further back stays where it is.
   */
  rewind(network: string, pool: string, fromBlock: number): void;
  total(network: string, pool: string): number;
  /** Leaves from index `from` on, at most `limit`, in order. */
  page(network: string, pool: string, from: number, limit: number): Leaf[];
  /** The last stored leaf (its root is the pool's root after `total` inserts). */
  last(network: string, pool: string): Leaf | undefined;
  /** Whether `commitment` (0x hex, any case) is a stored leaf of this pool: read off incognito_leaves_commitment. */
  contains(network: string, pool: string, commitment: string): boolean;
  /**
   * The last leaf and a page, read together (one snapshot): never a page of one tree with the root of another,
   * whatever another instance appends or rewinds meanwhile.
   */
  view(network: string, pool: string, from: number, limit: number): { last: Leaf | undefined; leaves: Leaf[] };
};

/** The leaf store the flows take: SQLite's through asAsync, or PostgreSQL's. */
export type AsyncLeafStore = Async<LeafStore>;

export function createLeafStore(db: Db): LeafStore {
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
  const cursorOf = (tx: Pick<Db, "select">, network: string, pool: string) =>
    tx.select({ nextBlock: incognitoSync.nextBlock }).from(incognitoSync).where(syncKey(network, pool)).get()
      ?.nextBlock;
  const lastOf = (tx: Pick<Db, "select">, network: string, pool: string) => {
    const leaf = tx
      .select()
      .from(incognitoLeaves)
      .where(key(network, pool))
      .orderBy(desc(incognitoLeaves.leafIndex))
      .limit(1)
      .get();
    return leaf ? row(leaf) : undefined;
  };
  const pageOf = (tx: Pick<Db, "select">, network: string, pool: string, from: number, limit: number) =>
    tx
      .select()
      .from(incognitoLeaves)
      .where(and(key(network, pool), gte(incognitoLeaves.leafIndex, from)))
      .orderBy(asc(incognitoLeaves.leafIndex))
      .limit(limit)
      .all()
      .map(row);

  return {
    nextBlock: (network, pool) => cursorOf(db, network, pool),
    append(network, pool, leaves, fromBlock, nextBlock) {
      const lowerPool = pool.toLowerCase();
      const updatedAt = new Date().toISOString();
      // IMMEDIATE: the cursor is read under the write lock, so the compare-and-set holds across connections too.
      return db.transaction(
        (tx) => {
          const cursor = cursorOf(tx, network, lowerPool);
          if ((cursor ?? fromBlock) !== fromBlock) return false;
          const first = leaves[0];
          if (first && first.leafIndex !== (lastOf(tx, network, lowerPool)?.leafIndex ?? -1) + 1) return false;
          for (const leaf of leaves) {
            tx.insert(incognitoLeaves)
              .values({ network, pool: lowerPool, ...leaf })
              .onConflictDoNothing()
              .run();
          }
          tx.insert(incognitoSync)
            .values({ network, pool: lowerPool, nextBlock, updatedAt })
            .onConflictDoUpdate({ target: [incognitoSync.network, incognitoSync.pool], set: { nextBlock, updatedAt } })
            .run();
          return true;
        },
        { behavior: "immediate" },
      );
    },
    rewind(network, pool, fromBlock) {
      db.transaction(
        (tx) => {
          tx.delete(incognitoLeaves)
            .where(and(key(network, pool), gte(incognitoLeaves.blockNumber, fromBlock)))
            .run();
          tx.update(incognitoSync)
            .set({ nextBlock: sql`min(${incognitoSync.nextBlock}, ${fromBlock})`, updatedAt: new Date().toISOString() })
            .where(syncKey(network, pool))
            .run();
        },
        { behavior: "immediate" },
      );
    },
    // The indexer stores leaves without gaps from index 0, so the count is the last index + 1 (read off the key).
    total(network, pool) {
      const leaf = lastOf(db, network, pool);
      return leaf ? leaf.leafIndex + 1 : 0;
    },
    page: (network, pool, from, limit) => pageOf(db, network, pool, from, limit),
    last: (network, pool) => lastOf(db, network, pool),
    contains: (network, pool, commitment) =>
      db
        .select({ leafIndex: incognitoLeaves.leafIndex })
        .from(incognitoLeaves)
        .where(and(key(network, pool), eq(incognitoLeaves.commitment, commitment.toLowerCase())))
        .get() !== undefined,
    view: (network, pool, from, limit) =>
      db.transaction((tx) => ({ last: lastOf(tx, network, pool), leaves: pageOf(tx, network, pool, from, limit) })),
  };
}
