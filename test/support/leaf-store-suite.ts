// The behaviour of the incognito leaf store (src/incognito/leaf-store.ts), written once and run on each database:
// test/incognito/leaf-store-sqlite.test.ts and leaf-store-postgres.test.ts. Every "instance" is a connection (pool)
// of its own on one real database; the races are the ones several instances' indexers run on the same rows.
import { afterAll, expect, test } from "bun:test";
import type { AsyncLeafStore, Leaf } from "../../src/incognito/leaf-store";

export type LeafDatabase = {
  /** A new connection (pool) to the shared database: one instance's store. */
  connect(): Promise<{ store: AsyncLeafStore; close(): Promise<void> }>;
};

let pools = 0;
/** A pool address of its own per test (mixed case: the store keys it lower-case), so tests never share rows. */
const freshPool = () => `0xAbC${(++pools).toString(16).padStart(37, "0")}`;
const hex = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
/** Leaf `index` of a made-up tree, in `block`; `fork` changes its commitment and root (another chain's leaf). */
const leaf = (index: number, block: number, fork = 0): Leaf => ({
  leafIndex: index,
  commitment: hex(1_000_000 * fork + 1_000 + index),
  root: hex(1_000_000 * fork + 2_000 + index),
  blockNumber: block,
});

export function leafStoreSuite(database: LeafDatabase) {
  const opened: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const connection of opened.splice(0)) await connection.close();
  });
  const instance = async () => {
    const connection = await database.connect();
    opened.push(connection);
    return connection.store;
  };
  const everyLeaf = (store: AsyncLeafStore, pool: string) => store.page("base", pool, 0, 10_000);

  test("append stores a range and moves the cursor; total, last, page and view read it, per network and pool", async () => {
    const store = await instance();
    const pool = freshPool();
    expect(await store.nextBlock("base", pool)).toBeUndefined();
    expect(await store.total("base", pool)).toBe(0);
    expect(await store.view("base", pool, 0, 10)).toEqual({ last: undefined, leaves: [] });

    expect(await store.append("base", pool, [leaf(0, 10), leaf(1, 12)], 5, 20)).toBe(true);
    expect(await store.append("base", pool, [], 20, 30)).toBe(true); // a range without leaves moves the cursor too
    expect(await store.append("base", pool.toLowerCase(), [leaf(2, 31)], 30, 40)).toBe(true);
    expect(await store.nextBlock("base", pool.toUpperCase().replace("0X", "0x"))).toBe(40);
    expect(await store.total("base", pool)).toBe(3);
    expect(await store.last("base", pool)).toEqual(leaf(2, 31));
    expect(await store.page("base", pool, 1, 1)).toEqual([leaf(1, 12)]);
    expect(await store.view("base", pool, 1, 10)).toEqual({ last: leaf(2, 31), leaves: [leaf(1, 12), leaf(2, 31)] });
    expect(await store.view("base", pool, 3, 10)).toEqual({ last: leaf(2, 31), leaves: [] });
    expect(await store.total("bsc", pool)).toBe(0);
    expect(await store.nextBlock("bsc", pool)).toBeUndefined();
    // contains: a stored commitment, whatever its case, of this network and pool only.
    expect(await store.contains("base", pool, leaf(1, 12).commitment)).toBe(true);
    expect(
      await store.contains("base", pool.toLowerCase(), leaf(2, 31).commitment.toUpperCase().replace("0X", "0x")),
    ).toBe(true);
    expect(await store.contains("base", pool, leaf(3, 31).commitment)).toBe(false);
    expect(await store.contains("base", pool, leaf(1, 12).root)).toBe(false);
    expect(await store.contains("bsc", pool, leaf(1, 12).commitment)).toBe(false);
    expect(await store.contains("base", freshPool(), leaf(1, 12).commitment)).toBe(false);
  });

  test("a range another instance stored first is refused and stores nothing twice", async () => {
    const [one, two] = [await instance(), await instance()];
    const pool = freshPool();
    expect(await one.append("base", pool, [leaf(0, 3)], 0, 10)).toBe(true);
    // Instance two read the same range from the same cursor (undefined: its start block) before one's append.
    expect(await two.append("base", pool, [leaf(0, 3)], 0, 10)).toBe(false);
    expect(await two.append("base", pool, [leaf(1, 12)], 10, 20)).toBe(true);
    expect(await one.append("base", pool, [leaf(1, 12)], 10, 20)).toBe(false);
    expect(await everyLeaf(one, pool)).toEqual([leaf(0, 3), leaf(1, 12)]);
    expect(await one.nextBlock("base", pool)).toBe(20);
  });

  test("an append whose first leaf is not the next index stores nothing and leaves the cursor", async () => {
    const store = await instance();
    const pool = freshPool();
    expect(await store.append("base", pool, [leaf(0, 3)], 0, 10)).toBe(true);
    expect(await store.append("base", pool, [leaf(2, 12)], 10, 20)).toBe(false);
    expect(await store.append("base", pool, [leaf(0, 12)], 10, 20)).toBe(false);
    expect(await store.nextBlock("base", pool)).toBe(10);
    expect(await everyLeaf(store, pool)).toEqual([leaf(0, 3)]);
  });

  test("rewind forgets the leaves from its block on and moves the cursor back, never forward", async () => {
    const [one, two] = [await instance(), await instance()];
    const pool = freshPool();
    await one.append("base", pool, [leaf(0, 3), leaf(1, 8), leaf(2, 15)], 0, 20);
    await one.rewind("base", pool, 8);
    expect(await one.nextBlock("base", pool)).toBe(8);
    expect(await everyLeaf(one, pool)).toEqual([leaf(0, 3)]);
    expect(await one.contains("base", pool, leaf(1, 8).commitment)).toBe(false);
    // Another instance found a mismatch too, with a later latest block: its rewind leaves the cursor where it is.
    await two.rewind("base", pool, 12);
    expect(await two.nextBlock("base", pool)).toBe(8);
    expect(await everyLeaf(two, pool)).toEqual([leaf(0, 3)]);
    // A pool never synced: nothing to rewind, and no cursor made up.
    const other = freshPool();
    await two.rewind("base", other, 5);
    expect(await two.nextBlock("base", other)).toBeUndefined();
  });

  test("a range read before another instance's rewind is refused: no stale leaves, no gap", async () => {
    const [one, two] = [await instance(), await instance()];
    const pool = freshPool();
    await one.append("base", pool, [leaf(0, 3), leaf(1, 8)], 0, 10);
    // Two reads blocks 10..19 of the old chain; meanwhile one finds a reorg and rewinds to block 5.
    const staleRange = [leaf(2, 11), leaf(3, 18)];
    await one.rewind("base", pool, 5);
    expect(await two.append("base", pool, staleRange, 10, 20)).toBe(false);
    expect(await everyLeaf(two, pool)).toEqual([leaf(0, 3)]);
    // One reads the new chain from its cursor, and two, going on from the store's cursor, finds the range taken.
    const newChain = [leaf(1, 9, 1), leaf(2, 11, 1)];
    expect(await one.append("base", pool, newChain, 5, 20)).toBe(true);
    expect(await two.append("base", pool, newChain, 5, 20)).toBe(false);
    expect(await everyLeaf(two, pool)).toEqual([leaf(0, 3), ...newChain]);
    expect(await two.nextBlock("base", pool)).toBe(20);
  });

  test("the same range appended by many instances at once: one stores it, every leaf once", async () => {
    const stores = await Promise.all(Array.from({ length: 4 }, () => instance()));
    const pool = freshPool();
    const range = Array.from({ length: 50 }, (_, i) => leaf(i, 100 + i));
    const answers = await Promise.all(
      stores.flatMap((store) => Array.from({ length: 5 }, () => store.append("base", pool, range, 100, 200))),
    );
    expect(answers.filter(Boolean)).toHaveLength(1);
    expect(await everyLeaf(stores[0]!, pool)).toEqual(range);
    expect(await stores[1]!.nextBlock("base", pool)).toBe(200);
  });

  test("appends and rewinds racing from several instances never leave a gap", async () => {
    const stores = await Promise.all(Array.from({ length: 3 }, () => instance()));
    const pool = freshPool();
    // The chain: leaf i in block 10 + i. Each instance indexes it as the indexer does, in ranges of 7 blocks, and
    // rewinds now and then (as after a reorg it thinks it saw); at the end the stored tree must be the chain's.
    const chain = Array.from({ length: 60 }, (_, i) => leaf(i, 10 + i));
    const LAST_BLOCK = 80;
    const index = async (store: AsyncLeafStore, seed: number, rewinds = true) => {
      for (let step = 0; step < 40; step++) {
        if (rewinds && (step + seed) % 11 === 5) await store.rewind("base", pool, 10 + ((step * 7 + seed) % 50));
        const from = (await store.nextBlock("base", pool)) ?? 0;
        if (from > LAST_BLOCK) continue;
        const to = Math.min(from + 6, LAST_BLOCK);
        const total = await store.total("base", pool);
        const fresh = chain.filter((l) => l.blockNumber >= from && l.blockNumber <= to && l.leafIndex >= total);
        await store.append("base", pool, fresh, from, to + 1);
        const stored = await everyLeaf(store, pool);
        expect(stored).toEqual(chain.slice(0, stored.length)); // a prefix of the chain's tree, at every step
      }
    };
    await Promise.all(stores.map((store, i) => index(store, i)));
    // Whatever the last rewind left, finishing the sync gives the whole tree.
    await index(stores[0]!, 0, false);
    expect(await everyLeaf(stores[1]!, pool)).toEqual(chain);
  });
}
