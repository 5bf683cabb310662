// The leaf indexer of several instances on one PostgreSQL, over the devnet's privacy pool: each instance a pool
// of its own with an indexer of its own, all reading the same pool into the same rows at once (in ranges of a few
// blocks, so that they race on many ranges). The pool's own events judge: the stored tree must be theirs.
import { afterAll, describe, expect, test } from "bun:test";
import { erc20Abi } from "@relay402/client/wire/abis";
import { newNote, notePrecommitment } from "@relay402/client/wire/incognito/notes";
import { privacyPoolAbi } from "@relay402/client/wire/incognito/pool-abi";
import { openPostgres, type PgDb } from "../../src/db/postgres/open";
import { createLeafIndexer } from "../../src/incognito/leaf-indexer";
import type { AsyncLeafStore, Leaf } from "../../src/incognito/leaf-store";
import { createLeafStorePostgres } from "../../src/incognito/leaf-store-postgres";
import { createPoolPort } from "../../src/incognito/pool-port";
import { createLogger } from "../../src/logger";
import { chainOf, freshPayer } from "../support/chain";
import { createTestDatabase } from "../support/postgres";

const c = chainOf("base");
const pool = c.info.privacyPool;
const port = createPoolPort(c.public, pool, c.info.relayer);
const logger = createLogger({ silent: true });
const opened: PgDb[] = [];
afterAll(async () => {
  for (const db of opened.splice(0)) await db.$client.close();
});

/** One instance on the database at `url`: its own pool, store and indexer. */
async function instance(url: string) {
  const db = await openPostgres(url, { max: 4 });
  opened.push(db);
  const store = createLeafStorePostgres(db);
  const indexer = createLeafIndexer({ network: "base", port, store, startBlock: 0n, rangeBlocks: 4n, logger });
  return { store, indexer };
}

/** `count` shields of fresh notes from a fresh payer: `count` new leaves in the pool. */
async function shield(count: number) {
  const payer = await freshPayer("base");
  const wallet = c.walletFor(payer.key);
  const amount = 10n ** BigInt(c.token.decimals);
  const wait = async (hash: `0x${string}`) =>
    expect((await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).toBe("success");
  await wait(
    await wallet.writeContract({
      address: c.token.address,
      abi: erc20Abi,
      functionName: "approve",
      args: [pool, amount * BigInt(count)],
    }),
  );
  for (let i = 0; i < count; i++) {
    const note = newNote(c.token.address, amount);
    await wait(
      await wallet.writeContract({
        address: pool,
        abi: privacyPoolAbi,
        functionName: "shield",
        args: [c.token.address, amount, notePrecommitment(note)],
      }),
    );
  }
}

/** The pool's tree as its events say, up to the block before `nextBlock`. */
async function poolLeaves(nextBlock: number): Promise<Leaf[]> {
  const leaves = await port.leavesIn(0n, BigInt(nextBlock - 1));
  return leaves.sort((a, b) => a.leafIndex - b.leafIndex);
}

const stored = (store: AsyncLeafStore) => store.page("base", pool, 0, 100_000);

describe("leaf indexers of several instances on one PostgreSQL", () => {
  test("two indexers racing on one database store the same tree as one indexer alone, the pool's", async () => {
    await shield(2);
    const shared = await createTestDatabase("leaves_shared");
    const [a, b] = [await instance(shared), await instance(shared)];
    const alone = await instance(await createTestDatabase("leaves_alone"));
    // Rounds of both syncing at once while new leaves arrive, then a last sync of each.
    for (let round = 0; round < 3; round++) {
      await Promise.all([a.indexer.sync(), b.indexer.sync(), a.indexer.sync(), shield(2)]);
    }
    await Promise.all([a.indexer.sync(), b.indexer.sync(), alone.indexer.sync()]);

    // Blocks keep coming (the devnet mines on a timer), so each store is judged up to its own cursor.
    const cursor = (await a.store.nextBlock("base", pool)) as number;
    const expected = await poolLeaves(cursor);
    expect(await stored(alone.store)).toEqual(await poolLeaves((await alone.store.nextBlock("base", pool)) as number));
    expect(await stored(alone.store)).toEqual(expected); // no shield since: the same tree
    expect(expected.length).toBeGreaterThanOrEqual(8);
    expect(expected.map((leaf) => leaf.leafIndex)).toEqual(expected.map((_, i) => i));
    expect(await stored(a.store)).toEqual(expected);
    expect(await stored(b.store)).toEqual(expected);
    expect(await stored(alone.store)).toEqual(expected);
    const tree = await port.treeAt(BigInt(cursor - 1));
    const view = await b.store.view("base", pool, 0, 100_000);
    expect(view.last?.root).toBe(tree.root);
    expect(view.leaves).toEqual(expected);
  }, 180_000);

  test("one instance rewinds (a reorg it saw) while the other indexes: both end on the pool's tree", async () => {
    await shield(2);
    const shared = await createTestDatabase("leaves_rewind");
    const [a, b] = [await instance(shared), await instance(shared)];
    await a.indexer.sync();
    const before = await stored(a.store);
    const rewindTo = before[Math.floor(before.length / 2)]?.blockNumber as number;
    await Promise.all([a.store.rewind("base", pool, rewindTo), b.indexer.sync(), shield(1), b.indexer.sync()]);
    await Promise.all([a.indexer.sync(), b.indexer.sync()]);
    await Promise.all([a.indexer.sync(), b.indexer.sync()]);
    const cursor = (await b.store.nextBlock("base", pool)) as number;
    const expected = await poolLeaves(cursor);
    expect(expected.length).toBe(before.length + 1);
    expect(await stored(a.store)).toEqual(expected);
    expect(await stored(b.store)).toEqual(expected);
  }, 180_000);
});
