// The behaviour of the issued-UserOp store (src/userops/issued-user-op-store.ts, the port every UserOp flow takes),
// written once and run on each database: test/userops/issued-user-op-store-{sqlite,postgres}.test.ts. Every
// "instance" is a connection (pool) of its own to one real database; nothing of the store is mocked.
import { afterAll, expect, test } from "bun:test";
import { PURGE_BATCH, PURGE_GRACE_SECONDS, startIssuedUserOpPurge } from "../../src/userops/issued-user-op-purge";
import {
  type AsyncIssuedUserOpStore,
  type NewIssuedUserOp,
  RECENT_ISSUED_LIMIT,
} from "../../src/userops/issued-user-op-store";

type Connection = { store: AsyncIssuedUserOpStore; close(): Promise<void> };

export type IssuedStoreDatabase = {
  /** A new, empty, migrated database; `connect` opens one instance's connection (pool) to it. */
  fresh(): Promise<{ connect(): Promise<Connection> }>;
};

const NOW = 1_800_000_000;
const INSTANCES = 4;
const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const logger = { info: () => {}, warn: () => {}, error: () => {} };

export function issuedUserOpStoreSuite(database: IssuedStoreDatabase) {
  const connections: Connection[] = [];
  afterAll(async () => {
    for (const connection of connections.splice(0)) await connection.close().catch(() => undefined);
  });

  /** A fresh database and `count` instances on it. */
  async function instances(count: number): Promise<AsyncIssuedUserOpStore[]> {
    const db = await database.fresh();
    const opened = await Promise.all(Array.from({ length: count }, () => db.connect()));
    connections.push(...opened);
    return opened.map((connection) => connection.store);
  }

  let counter = 0;
  const hashOf = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
  function newIssue(sender: string, expiresAt: number, over: Partial<NewIssuedUserOp> = {}): NewIssuedUserOp {
    counter += 1;
    return {
      userOpHash: hashOf(counter),
      network: "bsc",
      kind: "payment",
      sender,
      owner: address(1),
      userOp: JSON.stringify({ nonce: `0x${counter.toString(16)}` }),
      context: "{}",
      expiresAt,
      ...over,
    };
  }
  async function issue(store: AsyncIssuedUserOpStore, ...args: Parameters<typeof newIssue>) {
    const record = newIssue(...args);
    await store.issue(record);
    return record.userOpHash;
  }

  test("an issue is found as issued, sender and owner lower-cased; issuing the same UserOp again keeps the first", async () => {
    const [a, b] = (await instances(2)) as [AsyncIssuedUserOpStore, AsyncIssuedUserOpStore];
    const first = newIssue("0xAbCdEf0000000000000000000000000000000001", NOW + 60, {
      owner: "0x00000000000000000000000000000000000000AA",
      context: JSON.stringify({ first: true }),
    });
    await a.issue(first);
    // Another instance issues the very same hash with other content: nothing changes, nothing throws.
    await b.issue({ ...first, context: JSON.stringify({ first: false }), expiresAt: NOW + 999 });
    await Promise.all([a.issue(first), b.issue(first), a.issue(first)]);
    const stored = await b.find(first.userOpHash);
    expect(stored).toMatchObject({
      userOpHash: first.userOpHash,
      status: "issued",
      sender: first.sender.toLowerCase(),
      owner: first.owner.toLowerCase(),
      context: first.context,
      expiresAt: NOW + 60,
      txHash: null,
      result: null,
    });
    expect(typeof stored?.createdAt).toBe("string");
    expect(await a.find(hashOf(0xdead_beef))).toBeUndefined();
  });

  test("50 concurrent claims of one UserOp from four instances: exactly one wins, and only an issued UserOp is claimed", async () => {
    const stores = await instances(INSTANCES);
    const [a] = stores as [AsyncIssuedUserOpStore];
    for (let round = 0; round < 5; round++) {
      const hash = await issue(a, address(0xc1a1), NOW + 60);
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => (stores[i % INSTANCES] as AsyncIssuedUserOpStore).claim(hash)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await a.find(hash))?.status).toBe("sending");
      // Released (nothing reached the bundler): claimable again, once.
      await Promise.all(stores.map((store) => store.release(hash)));
      expect((await a.find(hash))?.status).toBe("issued");
      const again = await Promise.all(stores.map((store) => store.claim(hash)));
      expect(again.filter(Boolean)).toHaveLength(1);
      // A settled UserOp is never claimed, nor released back to issued.
      await a.finish(hash, { status: "success", txHash: "0x01", result: { ok: true, round } });
      expect(await Promise.all(stores.map((store) => store.claim(hash)))).toEqual(stores.map(() => false));
      await a.release(hash);
      expect(await a.find(hash)).toMatchObject({
        status: "success",
        txHash: "0x01",
        result: JSON.stringify({ ok: true, round }),
      });
    }
    expect(await a.claim(hashOf(0xfeed_f00d))).toBe(false);
  });

  test("claims of 40 distinct UserOps from four instances at once: each claimed exactly once", async () => {
    const stores = await instances(INSTANCES);
    const [a] = stores as [AsyncIssuedUserOpStore];
    const hashes: string[] = [];
    for (let i = 0; i < 40; i++) hashes.push(await issue(a, address(0xd15), NOW + 60));
    const wins = await Promise.all(
      hashes.flatMap((hash) => stores.map((store) => store.claim(hash).then((won) => (won ? hash : undefined)))),
    );
    expect(wins.filter(Boolean).sort()).toEqual([...hashes].sort());
  });

  test("a failed outcome is kept with its error and hash", async () => {
    const [a, b] = (await instances(2)) as [AsyncIssuedUserOpStore, AsyncIssuedUserOpStore];
    const hash = await issue(a, address(0xfa11), NOW + 60);
    expect(await b.claim(hash)).toBe(true);
    await b.finish(hash, { status: "failed", txHash: "0xabc", result: { code: "userop_error" } });
    expect(await a.find(hash)).toMatchObject({ status: "failed", txHash: "0xabc", result: '{"code":"userop_error"}' });
    const noHash = await issue(a, address(0xfa11), NOW + 60);
    await a.finish(noHash, { status: "failed", result: { code: "validation_error" } });
    expect((await b.find(noHash))?.txHash).toBeNull();
  });

  test("the claim's time is the sent time (cleared by a release); finish writes the executed UserOp's figures exactly", async () => {
    const [a, b] = (await instances(2)) as [AsyncIssuedUserOpStore, AsyncIssuedUserOpStore];
    const hash = await issue(a, address(0xf16), NOW + 60);
    expect(await a.find(hash)).toMatchObject({ sentAt: null, minedAt: null, gasUsed: null, actualGasCost: null });
    const before = new Date().toISOString();
    expect(await a.claim(hash)).toBe(true);
    const claimed = (await b.find(hash))?.sentAt ?? "";
    expect(claimed >= before && new Date(claimed).toISOString() === claimed).toBe(true);
    await b.release(hash);
    expect((await a.find(hash))?.sentAt).toBeNull();
    expect(await b.claim(hash)).toBe(true);
    const sentAt = (await a.find(hash))?.sentAt;
    // Beyond 2^64 and a double's 53 bits: exact, on either database.
    const huge = (2n ** 255n + 7n).toString();
    const mined = {
      gasUsed: "182345",
      effectiveGasPrice: huge,
      actualGasCost: "98765432109876543210",
      actualGasUsed: "150000",
      minedAt: new Date().toISOString(),
    };
    await a.finish(hash, { status: "success", txHash: "0x0f", result: { ok: true }, mined });
    expect(await b.find(hash)).toMatchObject({ status: "success", txHash: "0x0f", sentAt, ...mined });
    // A UserOp that never executed has no figures: unknown, not zero.
    const refused = await issue(a, address(0xf16), NOW + 60);
    await a.claim(refused);
    await a.finish(refused, { status: "failed", result: { code: "userop_error" } });
    expect(await b.find(refused)).toMatchObject({
      gasUsed: null,
      effectiveGasPrice: null,
      actualGasCost: null,
      minedAt: null,
    });
  });

  test("recentIssued: only the newest unexpired issued ones of that sender, network and kind, newest first", async () => {
    const [store] = (await instances(1)) as [AsyncIssuedUserOpStore];
    const sender = address(0xa11ce);
    for (let i = 0; i < 100; i++) await issue(store, sender, NOW + 10 + i);
    const expired = await issue(store, sender, NOW - 1);
    const atNow = await issue(store, sender, NOW);
    const claimed = await issue(store, sender, NOW + 1_000);
    await store.claim(claimed);
    await issue(store, sender, NOW + 2_000, { network: "base" });
    await issue(store, sender, NOW + 2_000, { kind: "deployment" });
    await issue(store, address(0xb0b), NOW + 2_000);

    const recent = await store.recentIssued("bsc", sender.toUpperCase().replace("0X", "0x"), "payment", NOW);
    expect(recent).toHaveLength(RECENT_ISSUED_LIMIT);
    expect(recent.map((row) => row.expiresAt)).toEqual(
      Array.from({ length: RECENT_ISSUED_LIMIT }, (_, i) => NOW + 109 - i),
    );
    const hashes = recent.map((row) => row.userOpHash);
    expect(hashes).not.toContain(expired);
    expect(hashes).not.toContain(atNow);
    expect(hashes).not.toContain(claimed);
    expect(recent.every((row) => row.sender === sender && row.status === "issued")).toBe(true);
    expect(await store.recentIssued("bsc", sender, "deployment", NOW)).toHaveLength(1);
    expect(await store.recentIssued("base", sender, "payment", NOW)).toHaveLength(1);
    expect(await store.recentIssued("bsc", address(0xb0b), "payment", NOW + 2_000)).toEqual([]);
  });

  test("purgeExpired: at most `limit` rows still issued and expired go; sending, sent and settled ones stay", async () => {
    const [store] = (await instances(1)) as [AsyncIssuedUserOpStore];
    const sender = address(0xc0ffee);
    const expiredIssued: string[] = [];
    for (let i = 0; i < 5; i++) expiredIssued.push(await issue(store, sender, NOW - 100));
    const settled = await issue(store, sender, NOW - 100);
    await store.claim(settled);
    await store.finish(settled, { status: "success", txHash: "0x01", result: { ok: true } });
    const failed = await issue(store, sender, NOW - 100);
    await store.finish(failed, { status: "failed", result: { code: "userop_error" } });
    const sending = await issue(store, sender, NOW - 100);
    await store.claim(sending);
    const atCutoff = await issue(store, sender, NOW - 50);
    const live = await issue(store, sender, NOW + 100);

    expect(await store.purgeExpired(NOW - 50, 3)).toBe(3);
    expect(await store.purgeExpired(NOW - 50, 100)).toBe(2);
    for (const hash of expiredIssued) expect(await store.find(hash)).toBeUndefined();
    expect((await store.find(settled))?.status).toBe("success");
    expect((await store.find(failed))?.status).toBe("failed");
    expect((await store.find(sending))?.status).toBe("sending");
    expect((await store.find(atCutoff))?.status).toBe("issued");
    expect((await store.find(live))?.status).toBe("issued");
    expect(await store.purgeExpired(NOW - 50, 100)).toBe(0);
  });

  test("purges from four instances at once delete each expired row once, and a row claimed meanwhile stays", async () => {
    const stores = await instances(INSTANCES);
    const [a] = stores as [AsyncIssuedUserOpStore];
    const sender = address(0xbeef);
    const hashes: string[] = [];
    for (let i = 0; i < 200; i++) hashes.push(await issue(a, sender, NOW - 100));
    // Every fourth row is claimed while the purges run: a settle of an expired UserOp that was already under way.
    const claims = hashes.filter((_, i) => i % 4 === 0);
    const [purged, won] = await Promise.all([
      Promise.all(stores.flatMap((store) => [store.purgeExpired(NOW, 30), store.purgeExpired(NOW, 30)])),
      Promise.all(claims.map((hash, i) => (stores[i % INSTANCES] as AsyncIssuedUserOpStore).claim(hash))),
    ]);
    const rest = await a.purgeExpired(NOW, 1_000);
    const claimedRows = won.filter(Boolean).length;
    expect(purged.reduce((sum, n) => sum + n, 0) + rest).toBe(hashes.length - claimedRows);
    for (const [i, hash] of claims.entries()) {
      expect((await a.find(hash))?.status).toBe(won[i] ? "sending" : undefined);
    }
    expect(await a.purgeExpired(NOW, 1_000)).toBe(0);
  });

  test("the periodic purge spares the grace hour and deletes the rest in batches", async () => {
    const [store] = (await instances(1)) as [AsyncIssuedUserOpStore];
    const lines: Record<string, unknown>[] = [];
    const purge = startIssuedUserOpPurge({
      store,
      logger: { ...logger, info: (line: Record<string, unknown>) => lines.push(line) },
      now: () => NOW,
    });
    try {
      const sender = address(0xdead);
      const total = PURGE_BATCH * 2 + 500;
      for (let i = 0; i < total; i += 100) {
        await Promise.all(Array.from({ length: 100 }, () => issue(store, sender, NOW - PURGE_GRACE_SECONDS - 1)));
      }
      const inGrace = await issue(store, sender, NOW - PURGE_GRACE_SECONDS + 1);
      expect(await purge.run()).toBe(total);
      expect(lines.at(-1)).toEqual({ event: "issued_user_ops_purged", count: total });
      expect((await store.find(inGrace))?.status).toBe("issued");
      expect(await purge.run()).toBe(0);
    } finally {
      purge.stop();
    }
    // (2,500 issues one statement each: a few seconds on SQLite, where every commit is a sync.)
  }, 60_000);

  test("reservation: the incognito UserOp that may still spend a nullifier, or did; not a failed, expired or other one", async () => {
    const [a, b] = (await instances(2)) as [AsyncIssuedUserOpStore, AsyncIssuedUserOpStore];
    const nullifier = (n: number) => `0x${n.toString(16).padStart(64, "a")}`;
    // Each spend inserts a change leaf of its own: only the nullifier is shared here.
    const spending = (nullifierHash: string) => ({ nullifierHash, leaf: `0x${"e".repeat(64)}` });
    const spend = (n: number, expiresAt: number, over: Partial<NewIssuedUserOp> = {}) =>
      issue(a, address(0x5eed), expiresAt, {
        kind: "incognito",
        context: JSON.stringify({ type: "unshield", nullifierHash: nullifier(n), feeAmount: "1" }),
        ...over,
      });

    // Nothing issued for it: spendable.
    expect(await b.reservation("bsc", spending(nullifier(1)), NOW)).toBeUndefined();

    // Issued and unexpired: pending, on that network only, whatever the case of the hash asked about.
    const issued = await spend(1, NOW + 60);
    expect(await b.reservation("bsc", spending(nullifier(1)), NOW)).toEqual({
      userOpHash: issued,
      expiresAt: NOW + 60,
      on: "nullifierHash",
    });
    expect(await b.reservation("bsc", spending(nullifier(1).toUpperCase().replace("0X", "0x")), NOW)).toEqual({
      userOpHash: issued,
      expiresAt: NOW + 60,
      on: "nullifierHash",
    });
    expect(await b.reservation("base", spending(nullifier(1)), NOW)).toBeUndefined();
    // Its paymaster data expired: the EntryPoint refuses it, the note is spendable again.
    expect(await b.reservation("bsc", spending(nullifier(1)), NOW + 60)).toBeUndefined();

    // Being sent: pending until it expires.
    const sending = await spend(2, NOW + 60);
    await a.claim(sending);
    expect((await b.reservation("bsc", spending(nullifier(2)), NOW))?.userOpHash).toBe(sending);
    expect(await b.reservation("bsc", spending(nullifier(2)), NOW + 61)).toBeUndefined();

    // Executed: spent for good, expired or not.
    const spent = await spend(3, NOW - 600);
    await a.claim(spent);
    await a.finish(spent, { status: "success", txHash: "0x02", result: {} });
    expect(await b.reservation("bsc", spending(nullifier(3)), NOW)).toEqual({
      userOpHash: spent,
      expiresAt: NOW - 600,
      on: "nullifierHash",
    });

    // Reverted or refused: the note was not spent.
    const failed = await spend(4, NOW + 60);
    await a.claim(failed);
    await a.finish(failed, { status: "failed", result: { code: "userop_error" } });
    expect(await b.reservation("bsc", spending(nullifier(4)), NOW)).toBeUndefined();
    // ...and a new unshield of it is pending again.
    const retried = await spend(4, NOW + 120);
    expect((await b.reservation("bsc", spending(nullifier(4)), NOW))?.userOpHash).toBe(retried);

    // The same nullifier in another kind's context is not an incognito spend; a shield has no nullifier.
    await issue(a, address(0x5eed), NOW + 60, { context: JSON.stringify({ nullifierHash: nullifier(5) }) });
    await spend(6, NOW + 60, { context: JSON.stringify({ type: "shield", feeAmount: "1" }) });
    expect(await b.reservation("bsc", spending(nullifier(5)), NOW)).toBeUndefined();
    expect(await b.reservation("bsc", spending(nullifier(6)), NOW)).toBeUndefined();
    // Another nullifier's spend is not this one's.
    expect((await b.reservation("bsc", spending(nullifier(1)), NOW))?.userOpHash).toBe(issued);
    expect((await b.reservation("bsc", spending(nullifier(3)), NOW))?.userOpHash).toBe(spent);
  });

  test("issueUnlessReserved: 20 unshields of one note issued at once from four instances -> one issued, the others told which", async () => {
    const stores = await instances(INSTANCES);
    const [a] = stores as [AsyncIssuedUserOpStore];
    const nullifierHash = `0x${"b".repeat(64)}`;
    const change = (n: number) => `0x${n.toString(16).padStart(64, "c")}`;
    const keys = (nullifier: string, n: number) => ({ nullifierHash: nullifier, leaf: change(n) });
    const attempt = (n: number, expiresAt = NOW + 60) =>
      newIssue(address(0x5eed), expiresAt, {
        kind: "incognito",
        context: JSON.stringify({ type: "unshield", nullifierHash, changeCommitment: change(n), attempt: n }),
      });
    for (let round = 0; round < 3; round++) {
      const attempts = Array.from({ length: 20 }, (_, i) => attempt(i));
      const answers = await Promise.all(
        attempts.map((record, i) =>
          (stores[i % INSTANCES] as AsyncIssuedUserOpStore).issueUnlessReserved(
            record,
            keys(nullifierHash.toUpperCase().replace("0X", "0x"), i),
            NOW,
          ),
        ),
      );
      const issued = attempts.filter((_, i) => answers[i] === undefined);
      expect(issued).toHaveLength(1);
      const winner = issued[0] as NewIssuedUserOp;
      expect(answers.filter(Boolean)).toEqual(
        Array(19).fill({ userOpHash: winner.userOpHash, expiresAt: winner.expiresAt, on: "nullifierHash" }),
      );
      for (const record of attempts) {
        expect((await a.find(record.userOpHash))?.status).toBe(record === winner ? "issued" : undefined);
      }
      // The winner's UserOp reverted: the note is spendable again, by one of the next round's attempts.
      await a.claim(winner.userOpHash);
      await a.finish(winner.userOpHash, { status: "failed", result: { code: "blockchain_error" } });
    }
    // An expired spend does not block; another network's spend of the same hash neither.
    const late = attempt(100, NOW + 10);
    expect(await a.issueUnlessReserved(late, keys(nullifierHash, 100), NOW)).toBeUndefined();
    expect(await a.issueUnlessReserved(attempt(101), keys(nullifierHash, 101), NOW + 10)).toBeUndefined();
    const elsewhere = { ...attempt(102), network: "base" };
    expect(await a.issueUnlessReserved(elsewhere, keys(nullifierHash, 102), NOW + 10)).toBeUndefined();
    expect((await a.find(elsewhere.userOpHash))?.network).toBe("base");
  });

  test("issueUnlessReserved: 20 shields of one commitment and unshields whose change is that commitment, issued at once from four instances -> one issued", async () => {
    const stores = await instances(INSTANCES);
    const [a, b] = stores as [AsyncIssuedUserOpStore, AsyncIssuedUserOpStore];
    const leaf = `0x${"d".repeat(64)}`;
    // Even attempts shield the note, odd ones unshield another note (a nullifier of their own) into it as change.
    const attempt = (n: number, expiresAt = NOW + 60) => {
      const nullifierHash = `0x${n.toString(16).padStart(64, "f")}`;
      const context =
        n % 2 === 0
          ? { type: "shield", commitment: leaf, attempt: n }
          : { type: "unshield", nullifierHash, changeCommitment: leaf, attempt: n };
      const record = newIssue(address(0x5eed), expiresAt, { kind: "incognito", context: JSON.stringify(context) });
      const keys = n % 2 === 0 ? { leaf: leaf.toUpperCase().replace("0X", "0x") } : { nullifierHash, leaf };
      return { record, keys };
    };
    for (let round = 0; round < 3; round++) {
      const attempts = Array.from({ length: 20 }, (_, i) => attempt(round * 100 + i));
      const answers = await Promise.all(
        attempts.map(({ record, keys }, i) =>
          (stores[i % INSTANCES] as AsyncIssuedUserOpStore).issueUnlessReserved(record, keys, NOW),
        ),
      );
      const issued = attempts.filter((_, i) => answers[i] === undefined);
      expect(issued).toHaveLength(1);
      const winner = (issued[0] as (typeof attempts)[number]).record;
      expect(answers.filter(Boolean)).toEqual(
        Array(19).fill({ userOpHash: winner.userOpHash, expiresAt: winner.expiresAt, on: "leaf" }),
      );
      for (const { record } of attempts) {
        expect((await a.find(record.userOpHash))?.status).toBe(record === winner ? "issued" : undefined);
      }
      expect(await b.reservation("bsc", { leaf }, NOW)).toEqual({
        userOpHash: winner.userOpHash,
        expiresAt: winner.expiresAt,
        on: "leaf",
      });
      expect(await b.reservation("bsc", { leaf }, NOW + 60)).toBeUndefined();
      expect(await b.reservation("base", { leaf }, NOW)).toBeUndefined();
      // The winner reverted: the leaf is free again, for one of the next round's attempts.
      await a.claim(winner.userOpHash);
      await a.finish(winner.userOpHash, { status: "failed", result: { code: "blockchain_error" } });
      expect(await b.reservation("bsc", { leaf }, NOW)).toBeUndefined();
    }
    // Inserted for good: the leaf stays held, expired or not; another kind's context holding it is no reservation.
    const done = attempt(1000, NOW - 600);
    expect(await a.issueUnlessReserved(done.record, done.keys, NOW - 700)).toBeUndefined();
    await a.claim(done.record.userOpHash);
    await a.finish(done.record.userOpHash, { status: "success", txHash: "0x03", result: {} });
    expect((await b.reservation("bsc", { leaf }, NOW))?.userOpHash).toBe(done.record.userOpHash);
    const other = `0x${"9".repeat(64)}`;
    await issue(a, address(0x5eed), NOW + 60, { context: JSON.stringify({ commitment: other }) });
    expect(await b.reservation("bsc", { leaf: other }, NOW)).toBeUndefined();
  });
}
