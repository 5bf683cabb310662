// Which unfinished records one instance may reconcile while others run on the same PostgreSQL, and the named lock
// reconciliations run under (a real PostgreSQL, two instances as two pools).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { KeyLeaseStore } from "../../src/chain/key-lease-store";
import { createKeyLeaseStorePostgres } from "../../src/chain/key-lease-store-postgres";
import { openPostgres, type PgDb } from "../../src/db/postgres/open";
import {
  inNonceOrder,
  liveLeases,
  orphansOnly,
  senderOf,
  startOrphanSweeper,
  underDatabaseLock,
} from "../../src/lifecycle/orphans";
import { createLogger } from "../../src/logger";
import { createTestDatabase } from "../support/postgres";

const ours = privateKeyToAccount(generatePrivateKey());
const theirs = privateKeyToAccount(generatePrivateKey());
const unleased = privateKeyToAccount(generatePrivateKey());
const mine = privateKeyToAccount(generatePrivateKey());

const signed = (account: typeof ours, nonce = 0) =>
  account.signTransaction({
    chainId: 56,
    type: "eip1559",
    to: account.address,
    nonce,
    gas: 21_000n,
    maxFeePerGas: 1n,
    maxPriorityFeePerGas: 1n,
  });

const pools: PgDb[] = [];
let a: KeyLeaseStore;
let b: KeyLeaseStore;

beforeAll(async () => {
  const url = await createTestDatabase("orphans");
  for (let i = 0; i < 2; i++) pools.push(await openPostgres(url, { max: 3 }));
  [a, b] = pools.map(createKeyLeaseStorePostgres) as [KeyLeaseStore, KeyLeaseStore];
});
afterAll(async () => {
  for (const pool of pools) await pool.$client.close();
});

describe("orphansOnly", () => {
  test("a record is an orphan only when no live instance may still be working on it", async () => {
    const now = Date.parse("2026-11-26T12:00:00Z");
    const old = new Date(now - 60_000).toISOString();
    const fresh = new Date(now - 1_000).toISOString();
    const filter = orphansOnly({
      staleMs: 30_000,
      now: () => now,
      leases: async () =>
        new Map([
          [theirs.address.toLowerCase(), "theirs"],
          [mine.address.toLowerCase(), "mine"],
        ]),
      takenOver: new Set([ours.address.toLowerCase()]),
    });
    const record = async (status: string, updatedAt: string, account?: typeof ours) => ({
      network: "bsc",
      status,
      updatedAt,
      rawTx: account ? await signed(account) : null,
    });
    // Pending: in someone's prepare until it is stale.
    expect(await filter(await record("pending", fresh))).toBe(false);
    expect(await filter(await record("pending", old))).toBe(true);
    // Sent: its key's live holder resolves it, however old (this instance's own too: its settle awaits the receipt).
    expect(await filter(await record("sent", old, theirs))).toBe(false);
    expect(await filter(await record("sent", old, mine))).toBe(false);
    // A key nobody leases any more: its holder is gone, the signed transaction is resumed at once.
    expect(await filter(await record("sent", fresh, unleased))).toBe(true);
    // A key taken over from a dead holder: its records are ours to resolve at once.
    expect(await filter(await record("sent", fresh, ours))).toBe(true);
  });

  test("senderOf reads the signer of a raw transaction, null for nothing or garbage", async () => {
    expect(await senderOf(await signed(theirs))).toBe(theirs.address.toLowerCase());
    expect(await senderOf(null)).toBeNull();
    expect(await senderOf("0x1234")).toBeNull();
  });

  test("inNonceOrder: the never signed first, then each key's transactions by nonce, whatever the ids", async () => {
    const records = [
      { id: 1, rawTx: await signed(theirs, 7) },
      { id: 2, rawTx: await signed(ours, 3) },
      { id: 3, rawTx: null },
      { id: 4, rawTx: await signed(theirs, 5) },
      { id: 5, rawTx: "0x1234" }, // unreadable: as if never signed
      { id: 6, rawTx: await signed(ours, 2) },
      { id: 7, rawTx: await signed(theirs, 6) },
    ];
    expect(inNonceOrder(records).map((record) => record.id)).toEqual([3, 5, 6, 2, 4, 7, 1]);
    expect(records.map((record) => record.id)).toEqual([1, 2, 3, 4, 5, 6, 7]); // sorted a copy
  });
});

describe("on PostgreSQL", () => {
  test("liveLeases lists the unexpired leases, this instance's as mine", async () => {
    await a.take("bsc", theirs.address, "instance-a", 60_000);
    await b.take("bsc", ours.address, "instance-b", 60_000);
    await a.take("bsc", unleased.address, "instance-a", 1);
    await Bun.sleep(1_100); // past the one-second allowance for the clocks
    const seenByB = await liveLeases(b, "bsc", "instance-b");
    expect(Object.fromEntries(seenByB)).toEqual({
      [theirs.address.toLowerCase()]: "theirs",
      [ours.address.toLowerCase()]: "mine",
    });
  });

  test("the named lock runs the work of one instance at a time and frees it after", async () => {
    let running = 0;
    let most = 0;
    const ran: string[] = [];
    const work = (who: string) => async () => {
      running += 1;
      most = Math.max(most, running);
      await Bun.sleep(200);
      ran.push(who);
      running -= 1;
    };
    const [first, second] = await Promise.all([
      underDatabaseLock(a, { name: "reconciliation", holder: "instance-a", ttlMs: 10_000 }, work("a")),
      underDatabaseLock(b, { name: "reconciliation", holder: "instance-b", ttlMs: 10_000 }, work("b")),
    ]);
    expect(most).toBe(1);
    expect([first, second].filter(Boolean)).toHaveLength(1);
    expect(ran).toHaveLength(1);
    // Released: the other one gets it now.
    expect(await underDatabaseLock(b, { name: "reconciliation", holder: "instance-b", ttlMs: 10_000 }, work("b"))).toBe(
      true,
    );
  });

  test("the lock is not reentrant: the same instance's second take while its first work runs is refused", async () => {
    const lock = { name: "reentry", holder: "instance-a", ttlMs: 10_000 };
    let runs = 0;
    const work = async () => {
      runs += 1;
      await Bun.sleep(200);
    };
    const [first, second] = await Promise.all([underDatabaseLock(a, lock, work), underDatabaseLock(a, lock, work)]);
    expect([first, second]).toEqual([true, false]);
    expect(runs).toBe(1);
    // Released: the instance takes it again, and so would any other.
    expect(await underDatabaseLock(a, lock, work)).toBe(true);
  });

  test("the lock is renewed while its work runs: work longer than its ttl keeps it to the end", async () => {
    const ttlMs = 600;
    let refusedMeanwhile = 0;
    const held = underDatabaseLock(a, { name: "long", holder: "instance-a", ttlMs }, async () => {
      for (let i = 0; i < 4; i++) {
        await Bun.sleep(400);
        const other = await underDatabaseLock(b, { name: "long", holder: "instance-b", ttlMs }, async () => {});
        if (!other) refusedMeanwhile += 1;
      }
    });
    expect(await held).toBe(true);
    // Unrenewed, the lease would have ended after 600 ms: the last three tries would have taken it.
    expect(refusedMeanwhile).toBe(4);
    expect(await underDatabaseLock(b, { name: "long", holder: "instance-b", ttlMs }, async () => {})).toBe(true);
  });

  test("a sweep still waiting for receipts is never joined by the next one its timer starts", async () => {
    let running = 0;
    let most = 0;
    let sweeps = 0;
    const sweeper = startOrphanSweeper({
      leases: a,
      instanceId: "instance-a",
      intervalMs: 50,
      staleMs: 30_000,
      lockTtlMs: 10_000,
      logger: createLogger({ silent: true }),
      reconcile: async () => {
        sweeps += 1;
        running += 1;
        most = Math.max(most, running);
        await Bun.sleep(400); // eight ticks of the timer
        running -= 1;
      },
    });
    try {
      await Bun.sleep(1_000);
    } finally {
      sweeper.stop();
    }
    // Without the guard a sweep started at every tick: about twenty, up to eight at once.
    expect(most).toBe(1);
    expect(sweeps).toBeLessThanOrEqual(3);
  });

  test("a lock whose holder died (never released) is free after its ttl, and a failed work still releases it", async () => {
    expect(await a.take("_lock", "crashy", "instance-a", 300)).toBeDefined();
    expect(await underDatabaseLock(b, { name: "crashy", holder: "instance-b", ttlMs: 5_000 }, async () => {})).toBe(
      false,
    );
    await Bun.sleep(400);
    await expect(
      underDatabaseLock(b, { name: "crashy", holder: "instance-b", ttlMs: 5_000 }, async () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await underDatabaseLock(a, { name: "crashy", holder: "instance-a", ttlMs: 5_000 }, async () => {})).toBe(
      true,
    );
  });
});
