// The hourly rollups on SQLite and on PostgreSQL (no chain): a day's and a month's figures read from them equal the
// figures of every row summed at once, exactly (amounts near 2^256); an hour with a pending record is not stored
// until it concludes; a record changed in a stored hour is summed again; two refreshes at once agree.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rangeFigures } from "../../src/dashboard/dashboard";
import { type DashboardStore, dashboardStore } from "../../src/dashboard/dashboard-store";
import { flowFigures, groupsOf, RANGES, type RangeName, series } from "../../src/dashboard/figures";
import { HOUR_MS, refreshRollups } from "../../src/dashboard/rollups";
import { openDatabase } from "../../src/db/open";
import { postgresPlainSql } from "../../src/db/plain-sql";
import { openPostgres } from "../../src/db/postgres/open";
import { createTestDatabase } from "../support/postgres";

const dir = mkdtempSync(join(tmpdir(), "relay402-rollups-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NOW = Date.now();
const TOKEN = "0x55d398326f99059ff775485246999027b3197955";
const EOA =
  "INSERT INTO eoa_settlements (network, payer, nonce, token, recipient, amount, valid_after, valid_before, signature, status, tx_hash, created_at, updated_at, gas_used, effective_gas_price, sent_at, mined_at) VALUES (?, ?, ?, ?, '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc', ?, 0, 0, '0x', ?, ?, ?, ?, ?, '1000000007', ?, ?)";
const USER_OP =
  "INSERT INTO issued_user_ops (user_op_hash, network, kind, sender, owner, user_op, context, status, tx_hash, expires_at, created_at, updated_at, actual_gas_cost, actual_gas_used, sent_at, mined_at) VALUES (?, ?, 'payment', ?, ?, '{}', ?, ?, ?, 0, ?, ?, ?, '98000', ?, ?)";

type Db = {
  run(text: string, params: unknown[]): Promise<void>;
  store: DashboardStore;
  /** The plan of a query, as text. */
  explain(query: { text: string; params: unknown[] }): Promise<string>;
  close(): Promise<void>;
};

/** 400 records over the last 3 days on both networks; one pending in an hour of yesterday. */
async function seed(db: Db) {
  for (let i = 0; i < 400; i++) {
    const created = new Date(NOW - 3 * 86_400_000 + i * 647_000).toISOString();
    const mined = new Date(Date.parse(created) + 200 + (i % 900)).toISOString();
    const network = i % 2 === 0 ? "bsc" : "base";
    const payer = `0x${(i % 17).toString(16).padStart(40, "0")}`;
    const hash = `0x${i.toString(16).padStart(64, "0")}`;
    const amount = (2n ** 255n + BigInt(i)).toString();
    const status = i === 150 ? "pending" : i % 9 === 0 ? "reverted" : "success";
    if (i % 4 === 3) {
      const context = JSON.stringify({ token: TOKEN, totalAmount: amount, feeAmount: String(10_000 + i) });
      const opStatus = status === "reverted" ? "failed" : status === "pending" ? "sending" : "success";
      const cost = i % 8 === 7 ? null : String(98_000_000_000_000 + i);
      await db.run(USER_OP, [
        hash,
        network,
        payer,
        payer,
        context,
        opStatus,
        hash,
        created,
        created,
        cost,
        created,
        mined,
      ]);
    } else {
      const gas = i % 10 === 0 ? null : String(61_234 + i);
      await db.run(EOA, [network, payer, hash, TOKEN, amount, status, hash, created, created, gas, created, mined]);
    }
  }
}

/** What a range must show: its rows summed at once (no rollup). */
async function fromRows(store: DashboardStore, range: RangeName) {
  const { ms, bucketMs } = RANGES[range];
  const rows = await store.rows({ since: new Date(NOW - ms).toISOString() });
  const groups = groupsOf(rows, HOUR_MS);
  return { flows: flowFigures(groups), series: series(groups, NOW - ms, NOW, bucketMs), settlements: rows.length };
}

function rollupSuite(open: () => Promise<Db>) {
  test("day and month figures from the rollups equal every row summed; changes and pending hours are followed", async () => {
    const db = await open();
    try {
      await seed(db);
      const { store } = db;
      for (const range of ["day", "month"] as const)
        expect(await rangeFigures(store, range, {}, NOW)).toEqual(await fromRows(store, range));
      // Every ended hour of the 3 days is stored but the pending record's.
      const stored = await store.storedHours(new Date(NOW - 4 * 86_400_000).toISOString(), new Date(NOW).toISOString());
      expect(stored.size).toBeGreaterThan(24 * 4 - 4);
      const pendingHour = new Date(Math.floor((NOW - 3 * 86_400_000 + 150 * 647_000) / HOUR_MS) * HOUR_MS);
      expect(stored.has(pendingHour.toISOString())).toBe(false);
      const monthly = await store.rollups(new Date(NOW - 31 * 86_400_000).toISOString(), new Date(NOW).toISOString());
      expect(monthly.length).toBeGreaterThan(100);
      // Sums kept exact: NUMERIC on PostgreSQL, decimal text on SQLite.
      expect(monthly.some((group) => group.volume > 2n ** 256n)).toBe(true);

      // A stored hour's record reverts after all, the pending one concludes: both as a store writes (updated_at now).
      const later = new Date().toISOString();
      await db.run("UPDATE eoa_settlements SET status = 'reverted', updated_at = ? WHERE nonce = ?", [
        later,
        `0x${(2).toString(16).padStart(64, "0")}`,
      ]);
      await db.run("UPDATE eoa_settlements SET status = 'success', updated_at = ? WHERE status = 'pending'", [later]);
      const before = await rangeFigures(store, "month", {}, NOW);
      expect(before).toEqual(await fromRows(store, "month"));
      expect(
        (await store.storedHours(pendingHour.toISOString(), new Date(NOW).toISOString())).has(
          pendingHour.toISOString(),
        ),
      ).toBe(true);
      const bsc = before.flows.find((each) => each.network === "bsc" && each.flow === "eoa");
      expect(bsc?.settlements.pending).toBe(0);

      // A failed record of a stored hour is deleted (released to be settled again): its hour is built again.
      const failedNonce = `0x${(9).toString(16).padStart(64, "0")}`;
      const failedHour = new Date(Math.floor((NOW - 3 * 86_400_000 + 9 * 647_000) / HOUR_MS) * HOUR_MS).toISOString();
      expect((await store.storedHours(failedHour, new Date(NOW).toISOString())).has(failedHour)).toBe(true);
      await db.run("DELETE FROM eoa_settlements WHERE nonce = ? AND status = 'reverted'", [failedNonce]);
      expect((await store.storedHours(failedHour, new Date(NOW).toISOString())).has(failedHour)).toBe(false);
      const afterDelete = await rangeFigures(store, "month", {}, NOW);
      expect(afterDelete).toEqual(await fromRows(store, "month"));
      expect(afterDelete.settlements).toBe(before.settlements - 1);

      // Filters read the rollups alike; two refreshes at once add nothing twice.
      const filtered = await rangeFigures(store, "month", { network: "base", flow: "smart-wallet" }, NOW);
      expect(filtered.flows).toEqual(
        afterDelete.flows.filter((each) => each.network === "base" && each.flow === "smart-wallet"),
      );
      await db.run("DELETE FROM dashboard_rollup_hours", []);
      await db.run("DELETE FROM dashboard_rollups", []);
      await Promise.all([refreshRollups(store, NOW), refreshRollups(store, NOW)]);
      expect(await rangeFigures(store, "month", {}, NOW)).toEqual(afterDelete);

      // The reads use indexes: the rollups' primary key (hour first), each table's updated_at, and the records not
      // concluded (the stuck list and gauge) each table's partial index.
      const queries = store.rollupQueries();
      expect(await db.explain(queries.rollups)).toMatch(
        /dashboard_rollups_hour_network_flow_source_token_pk|sqlite_autoindex_dashboard_rollups_1/,
      );
      const stuck = await db.explain(
        store.rowsQuery({ status: "pending", before: new Date(NOW - 300_000).toISOString() }, 50),
      );
      const changed = await db.explain(queries.changed);
      for (const table of ["eoa_settlements", "x402_settlements", "swap_settlements", "issued_user_ops"])
        expect({ changed, stuck }).toEqual({
          changed: expect.stringContaining(`${table}_updated`),
          // (SQLite seeks issued_user_ops by its (status, expires_at) index instead: as narrow.)
          stuck: expect.stringMatching(
            table === "issued_user_ops" ? /issued_user_ops_(unconcluded|expiry)/ : `${table}_unconcluded`,
          ),
        });
    } finally {
      await db.close();
    }
  }, 60_000);
}

describe("SQLite", () => {
  rollupSuite(async () => {
    const db = openDatabase(join(dir, "rollups.sqlite"));
    return {
      run: async (text, params) => {
        db.$client.query(text).run(...(params as string[]));
      },
      store: dashboardStore.sqlite(db),
      explain: async (query) =>
        (db.$client.query(`EXPLAIN QUERY PLAN ${query.text}`).all(...(query.params as string[])) as any[])
          .map((row) => row.detail)
          .join("\n"),
      close: async () => db.$client.close(),
    };
  });
});

describe("PostgreSQL", () => {
  rollupSuite(async () => {
    const db = await openPostgres(await createTestDatabase("rollups"));
    const sql = postgresPlainSql(db);
    return {
      run: async (text, params) => {
        await sql.run(text, params);
      },
      store: (await dashboardStore.postgres())(db),
      explain: async (query) => {
        const plan = await db.$client.begin(async (tx) => {
          // A few rows: without this the planner reads the tables whole, which says nothing about a million rows.
          await tx.unsafe("SET LOCAL enable_seqscan = off");
          return tx.unsafe(`EXPLAIN ${query.text}`, query.params as never[]);
        });
        return (plan as any[]).map((row) => row["QUERY PLAN"]).join("\n");
      },
      close: () => db.$client.close(),
    };
  });
});
