import { and, asc, desc, eq, gte, sql } from "drizzle-orm";
import type { Db } from "../db/open";
import { incognitoLeaves, incognitoSync } from "../db/schema";
import type { Leaf, LeafStore } from "./leaf-store";

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
