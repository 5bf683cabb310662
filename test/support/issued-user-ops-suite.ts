// The behaviour of the issued-UserOp store (src/userops/issued-user-op-store.ts, the port every UserOp flow takes),
// written once and run on each database: test/userops/issued-user-op-store-{sqlite,postgres}.test.ts. Every
// "instance" is a connection (pool) of its own to one real database; nothing of the store is mocked. The incognito
// reservations are in issued-user-op-reservations-suite.ts.
import { expect, test } from "bun:test";
import { PURGE_BATCH, PURGE_GRACE_SECONDS, startIssuedUserOpPurge } from "../../src/userops/issued-user-op-purge";
import { type AsyncIssuedUserOpStore, RECENT_ISSUED_LIMIT } from "../../src/userops/issued-user-op-store";
import {
  address,
  INSTANCES,
  type IssuedStoreDatabase,
  issuedStoreFixtures,
  logger,
  NOW,
} from "./issued-user-ops-fixtures";

export function issuedUserOpStoreSuite(database: IssuedStoreDatabase) {
  const { instances, newIssue, issue, hashOf } = issuedStoreFixtures(database);

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
      blockNumber: 4_000_000_001,
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
}
