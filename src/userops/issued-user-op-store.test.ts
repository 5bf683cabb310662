import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { asAsync } from "../db/async-port";
import { openDatabase } from "../db/open";
import { PURGE_BATCH, PURGE_GRACE_SECONDS, startIssuedUserOpPurge } from "./issued-user-op-purge";
import { createIssuedUserOpStore, type NewIssuedUserOp, RECENT_ISSUED_LIMIT } from "./issued-user-op-store";

const db = openDatabase(join(mkdtempSync(join(tmpdir(), "relay402-issued-")), "relay402.sqlite"));
const store = createIssuedUserOpStore(db);
const lines: Record<string, unknown>[] = [];
const logger = { info: (f: Record<string, unknown>) => lines.push(f), warn: () => {}, error: () => {} };
const NOW = 1_800_000_000;
const purge = startIssuedUserOpPurge({ store: asAsync(store), logger, now: () => NOW });
afterAll(() => {
  purge.stop();
  db.$client.close();
});

let counter = 0;
const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
function issue(sender: string, expiresAt: number, over: Partial<NewIssuedUserOp> = {}) {
  const userOpHash = `0x${(++counter).toString(16).padStart(64, "0")}`;
  store.issue({
    userOpHash,
    network: "bsc",
    kind: "payment",
    sender,
    owner: address(1),
    userOp: JSON.stringify({ nonce: `0x${counter.toString(16)}` }),
    context: "{}",
    expiresAt,
    ...over,
  });
  return userOpHash;
}

describe("issued UserOps: bounded lookup", () => {
  test("only the newest unexpired issued ones of that sender, network and kind, newest first", () => {
    const sender = address(0xa11ce);
    for (let i = 0; i < 100; i++) issue(sender, NOW + 10 + i);
    const expired = issue(sender, NOW - 1);
    const claimed = issue(sender, NOW + 1_000);
    store.claim(claimed);
    issue(sender, NOW + 2_000, { network: "base" });
    issue(sender, NOW + 2_000, { kind: "deployment" });
    issue(address(0xb0b), NOW + 2_000);

    const recent = store.recentIssued("bsc", sender.toUpperCase().replace("0X", "0x"), "payment", NOW);
    expect(recent).toHaveLength(RECENT_ISSUED_LIMIT);
    expect(recent.map((row) => row.expiresAt)).toEqual(
      Array.from({ length: RECENT_ISSUED_LIMIT }, (_, i) => NOW + 109 - i),
    );
    expect(recent.map((row) => row.userOpHash)).not.toContain(expired);
    expect(store.recentIssued("bsc", sender, "deployment", NOW)).toHaveLength(1);
    expect(store.recentIssued("base", sender, "payment", NOW)).toHaveLength(1);
  });
});

describe("issued UserOps: purge", () => {
  test("deletes at most `limit` rows still issued and expired; sent and settled ones stay", () => {
    const sender = address(0xc0ffee);
    const expiredIssued = Array.from({ length: 5 }, () => issue(sender, NOW - 100));
    const settled = issue(sender, NOW - 100);
    store.claim(settled);
    store.finish(settled, { status: "success", txHash: "0x01", result: { ok: true } });
    const failed = issue(sender, NOW - 100);
    store.finish(failed, { status: "failed", result: { code: "userop_error" } });
    const sending = issue(sender, NOW - 100);
    store.claim(sending);
    const live = issue(sender, NOW + 100);

    // (The cutoff leaves out the first test's row that expired at NOW - 1.)
    expect(store.purgeExpired(NOW - 50, 3)).toBe(3);
    expect(store.purgeExpired(NOW - 50, 100)).toBe(2);
    for (const hash of expiredIssued) expect(store.find(hash)).toBeUndefined();
    expect(store.find(settled)?.status).toBe("success");
    expect(store.find(failed)?.status).toBe("failed");
    expect(store.find(sending)?.status).toBe("sending");
    expect(store.find(live)?.status).toBe("issued");
    expect(store.purgeExpired(NOW - 50, 100)).toBe(0);
  });

  test("the periodic purge spares the grace hour and deletes the rest in batches", async () => {
    const sender = address(0xdead);
    const total = PURGE_BATCH * 2 + 500;
    db.$client.transaction(() => {
      for (let i = 0; i < total; i++) issue(sender, NOW - PURGE_GRACE_SECONDS - 1);
    })();
    const inGrace = issue(sender, NOW - PURGE_GRACE_SECONDS + 1);

    expect(await purge.run()).toBe(total);
    expect(lines.at(-1)).toEqual({ event: "issued_user_ops_purged", count: total });
    expect(store.find(inGrace)?.status).toBe("issued");
    const left = db.$client
      .query<{ n: number }, [string]>("SELECT count(*) AS n FROM issued_user_ops WHERE sender = ?")
      .get(sender);
    expect(left?.n).toBe(1);
  });
});
