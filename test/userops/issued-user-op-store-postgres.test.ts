// The issued-UserOp store on a real PostgreSQL (test/support/postgres.ts): each instance a pool of its own, a
// fresh database per test.
import { describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { openPostgres } from "../../src/db/postgres/open";
import { createIssuedUserOpStorePostgres } from "../../src/userops/issued-user-op-store-postgres";
import { issuedUserOpReservationsSuite } from "../support/issued-user-op-reservations-suite";
import { issuedUserOpStoreSuite } from "../support/issued-user-ops-suite";
import { createTestDatabase } from "../support/postgres";

describe("issued UserOps on PostgreSQL", () => {
  const database: Parameters<typeof issuedUserOpStoreSuite>[0] = {
    fresh: async () => {
      const url = await createTestDatabase("issued_user_ops");
      await (await openPostgres(url, { max: 1 })).$client.close(); // migrated once, before the instances race
      return {
        connect: async () => {
          const db = await openPostgres(url, { max: 5 });
          return { store: createIssuedUserOpStorePostgres(db), close: () => db.$client.close() };
        },
      };
    },
  };
  issuedUserOpStoreSuite(database);
  issuedUserOpReservationsSuite(database);

  test("reservation reads the partial indexes on the nullifier and on the leaf (commitment or change), not every row", async () => {
    const url = await createTestDatabase("issued_user_ops_index");
    const admin = new SQL(url, { max: 1 });
    try {
      await (await openPostgres(url, { max: 1 })).$client.close();
      // A handful of rows would be read sequentially whatever the indexes; with that off, the planner takes an
      // index when the query's expression matches one.
      await admin.unsafe(`ALTER DATABASE "${new URL(url).pathname.slice(1)}" SET enable_seqscan = off`);
      const db = await openPostgres(url, { max: 1 });
      try {
        const store = createIssuedUserOpStorePostgres(db);
        const hex = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
        const nullifierHash = hex(0xc0ffee);
        // 60 spends of other notes beside it: a scan of the whole partial index would read them all.
        for (const [i, nullifier] of [nullifierHash, ...Array.from({ length: 60 }, (_, i) => hex(i + 1))].entries()) {
          await store.issue({
            userOpHash: hex(0x1000 + i),
            network: "bsc",
            kind: "incognito",
            sender: `0x${"2".repeat(40)}`,
            owner: `0x${"3".repeat(40)}`,
            userOp: "{}",
            context: JSON.stringify(
              i % 2 === 0
                ? { type: "unshield", nullifierHash: nullifier, changeCommitment: hex(0xc0de00 + i) }
                : { type: "shield", commitment: hex(0xc0de00 + i) },
            ),
            expiresAt: 2_000_000_000,
          });
        }
        expect((await store.reservation("bsc", { nullifierHash, leaf: hex(0xbad) }, 1_800_000_000))?.on).toBe(
          "nullifierHash",
        );
        // A shield's commitment (row 7) and an unshield's change (row 8), one lookup each.
        for (const i of [7, 8]) {
          expect(await store.reservation("bsc", { leaf: hex(0xc0de00 + i) }, 1_800_000_000)).toEqual({
            userOpHash: hex(0x1000 + i),
            expiresAt: 2_000_000_000,
            on: "leaf",
          });
        }
        // This session's index counters reach the statistics when it next goes idle.
        await db.$client`SELECT pg_stat_force_next_flush()`;
        const counters = async (index: string) => {
          const [row] = await admin`
            SELECT idx_scan, idx_tup_read FROM pg_stat_user_indexes WHERE indexrelname = ${index}`;
          return { scans: Number(row?.idx_scan ?? 0), read: Number(row?.idx_tup_read ?? 0) };
        };
        const start = Date.now();
        while ((await counters("issued_user_ops_leaf")).scans === 0 && Date.now() - start < 10_000) {
          await Bun.sleep(100);
        }
        // One lookup of the one entry per question: the query's expression is the index's.
        expect(await counters("issued_user_ops_nullifier")).toEqual({ scans: 1, read: 1 });
        expect(await counters("issued_user_ops_leaf")).toEqual({ scans: 2, read: 2 });
      } finally {
        await db.$client.close();
      }
    } finally {
      await admin.close();
    }
  });
});
