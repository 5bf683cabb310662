import { describe, expect, test } from "bun:test";
import type { PublicClient } from "viem";
import { generatePrivateKey } from "viem/accounts";
import { createKeyPool, type ExecutorKey, markRefused, resyncNonces } from "./key-pool";

// Pure bookkeeping: no call reaches the client in these tests.
const noClient = {} as PublicClient;

function keyAt(nextNonce: number, outstanding: number[] = []): ExecutorKey {
  const [key] = createKeyPool(noClient, [generatePrivateKey()]).keys as [ExecutorKey];
  key.nextNonce = nextNonce;
  for (const nonce of outstanding) key.outstanding.add(nonce);
  return key;
}

describe("markRefused", () => {
  test("a refused last nonce is reused", () => {
    const key = keyAt(6, [5]);
    markRefused(key, 5);
    expect(key.nextNonce).toBe(5);
    expect(key.gaps.size).toBe(0);
  });

  test("a refused nonce under a live one is a gap; refusing the ones above gives every nonce back", () => {
    const key = keyAt(8, [5, 6, 7]);
    markRefused(key, 5);
    expect([...key.gaps.keys()]).toEqual([5]);
    expect(key.nextNonce).toBe(8);
    markRefused(key, 6);
    markRefused(key, 7);
    expect(key.nextNonce).toBe(5);
    expect(key.gaps.size).toBe(0);
  });

  test("trimming stops at a gap whose filler is being broadcast", () => {
    const key = keyAt(7, [5, 6]);
    markRefused(key, 5);
    (key.gaps.get(5) as { busy?: boolean }).busy = true;
    markRefused(key, 6);
    expect(key.nextNonce).toBe(6);
    expect([...key.gaps.keys()]).toEqual([5]);
  });
});

describe("resyncNonces", () => {
  test("nothing alive above the chain's pending nonce: the local nonce falls back to it", () => {
    const key = keyAt(9);
    resyncNonces(key, 5, 5);
    expect(key.nextNonce).toBe(5);
    expect(key.gaps.size).toBe(0);
  });

  test("the chain ahead of us (another sender on the key): the local nonce moves up", () => {
    const key = keyAt(3);
    resyncNonces(key, 7, 8);
    expect(key.nextNonce).toBe(8);
  });

  test("holes below the lowest outstanding nonce become gaps; a dropped original is offered, not replaced", () => {
    const key = keyAt(10, [9]);
    key.unconfirmed.set(7, "0x07");
    resyncNonces(key, 5, 5);
    expect(key.nextNonce).toBe(10);
    expect([...key.gaps].sort(([a], [b]) => a - b)).toEqual([
      [5, {}],
      [6, {}],
      [7, { raw: "0x07" }],
      [8, {}],
    ]);
  });

  test("a timed-out transaction the node lost is offered again", () => {
    const key = keyAt(6);
    key.unconfirmed.set(5, "0x05");
    resyncNonces(key, 5, 5);
    expect(key.nextNonce).toBe(6);
    expect(key.gaps.get(5)).toEqual({ raw: "0x05" });
  });

  test("gaps and unconfirmed transactions are forgotten once mined; the pool's are kept until then", () => {
    const key = keyAt(9, [8]);
    key.gaps.set(5, {});
    key.gaps.set(6, {});
    key.unconfirmed.set(5, "0x05");
    resyncNonces(key, 6, 8);
    expect([...key.gaps.keys()]).toEqual([6]);
    expect(key.unconfirmed.size).toBe(0);
    resyncNonces(key, 8, 9);
    expect(key.gaps.size).toBe(0);
  });

  test("a nonce this process saw mined is not handed out again on a stale pending count", () => {
    const key = keyAt(7);
    key.minedThrough = 7;
    resyncNonces(key, 5, 5);
    expect(key.nextNonce).toBe(7);
  });
});

describe("reserve", () => {
  test("skips a key with a gap while another key has none, and uses it when all have one", () => {
    const pool = createKeyPool(noClient, [generatePrivateKey(), generatePrivateKey()]);
    const [gapped, healthy] = pool.keys as [ExecutorKey, ExecutorKey];
    gapped.gaps.set(0, {});
    for (let i = 0; i < 4; i++) expect(pool.reserve()).toBe(healthy);
    healthy.gaps.set(0, {});
    expect(pool.reserve()).toBe(gapped);
  });
});

describe("usable keys (executor key leases)", () => {
  const pool = (count: number, usable: Set<number>, client: PublicClient = noClient) => {
    const keys = Array.from({ length: count }, () => generatePrivateKey());
    let created: ReturnType<typeof createKeyPool>;
    created = createKeyPool(client, keys, {
      usable: (key) => usable.has(created.keys.indexOf(key)),
      noKey: () => new Error("no lease"),
    });
    return created;
  };

  test("reserve and peek hand out only usable keys, round-robin among them, and throw noKey when none is", () => {
    const usable = new Set([1, 3]);
    const keys = pool(4, usable);
    const picked = Array.from({ length: 4 }, () => keys.keys.indexOf(keys.reserve()));
    expect(picked).toEqual([1, 3, 1, 3]);
    expect([1, 3]).toContain(keys.keys.indexOf(keys.peek()));
    usable.clear();
    expect(() => keys.reserve()).toThrow("no lease");
    expect(() => keys.peek()).toThrow("no lease");
    expect(keys.keys.filter(keys.usable)).toEqual([]);
  });

  test("a gapped usable key is skipped only while another usable key has none", () => {
    const usable = new Set([0, 1]);
    const keys = pool(3, usable);
    (keys.keys[0] as ExecutorKey).gaps.set(3, {});
    // Key 2 has no gap but is not usable: it never stands in.
    expect(Array.from({ length: 3 }, () => keys.keys.indexOf(keys.reserve()))).toEqual([1, 1, 1]);
    usable.delete(1);
    expect(keys.keys.indexOf(keys.reserve())).toBe(0);
  });

  test("resetNonces forgets the next nonce, gaps and unconfirmed originals; the next nonce is read again, above any still handed out", async () => {
    let pending = 7;
    const client = { getTransactionCount: async () => pending } as unknown as PublicClient;
    const keys = pool(1, new Set([0]), client);
    const key = keys.keys[0] as ExecutorKey;
    expect(await keys.takeNonce(key)).toBe(7);
    expect(await keys.takeNonce(key)).toBe(8); // 7 and 8 handed out, not sent yet
    key.gaps.set(5, {});
    key.unconfirmed.set(6, "0x01");
    keys.resetNonces(key);
    expect(key.nextNonce).toBeUndefined();
    expect(key.gaps.size).toBe(0);
    expect(key.unconfirmed.size).toBe(0);
    // The node has not seen 7 and 8: its pending count is still 7, but 9 is the next free nonce here.
    expect(await keys.takeNonce(key)).toBe(9);
    key.outstanding.clear();
    keys.resetNonces(key);
    pending = 12; // another holder sent meanwhile
    expect(await keys.takeNonce(key)).toBe(12);
  });
});
