// The PostgreSQL settlement store's claim under real concurrency: several instances (each its own pool of
// connections) claim the same authorization at once on one PostgreSQL; the database alone decides the winner.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { openDatabase } from "../../src/db/open";
import { openPostgres, type PgDb } from "../../src/db/postgres/open";
import { createSettlementStore, type NewSettlement } from "../../src/settlement/settlement-store";
import {
  type AsyncSettlementStore,
  createSettlementStorePostgres,
} from "../../src/settlement/settlement-store-postgres";
import { createTestDatabase } from "../support/postgres";

const INSTANCES = 5;
const CLAIMS = 50;

let url: string;
let dbs: PgDb[] = [];
let stores: AsyncSettlementStore[] = [];

let nonces = 0;
/** A settlement with a nonce no other test uses (the key is network + payer + nonce). */
function settlement(overrides: Partial<NewSettlement> = {}): NewSettlement {
  nonces += 1;
  return {
    network: "bsc",
    payer: "0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266",
    nonce: `0x${nonces.toString(16).padStart(64, "0")}`,
    token: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
    recipient: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
    amount: "1000000000000000000",
    validAfter: 0,
    validBefore: 4_102_444_800, // 2100: past int4's 2038
    signature: `0x${"ab".repeat(65)}`,
    paymentId: null,
    ...overrides,
  };
}

async function count(where: string): Promise<number> {
  const client = new SQL(url, { max: 1 });
  try {
    const [row] = await client.unsafe(`SELECT count(*)::int AS n FROM eoa_settlements WHERE ${where}`);
    return row.n;
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  url = await createTestDatabase("claims");
  // Instances start at once: the migrations run once, under their lock.
  dbs = await Promise.all(Array.from({ length: INSTANCES }, () => openPostgres(url, { max: 10 })));
  stores = dbs.map((db) => createSettlementStorePostgres(db));
});

afterAll(async () => {
  await Promise.all(dbs.map((db) => db.$client.close()));
});

describe("PostgreSQL settlement claim", () => {
  test(`${CLAIMS} concurrent claims of one authorization from ${INSTANCES} instances: exactly one wins`, async () => {
    const one = settlement();
    const results = await Promise.all(
      Array.from({ length: CLAIMS }, (_, index) => (stores[index % INSTANCES] as AsyncSettlementStore).claim(one)),
    );
    expect(results.filter((result) => result.created)).toHaveLength(1);
    // Every loser got the winner's record, not a copy or nothing.
    const winner = results.find((result) => result.created)?.record;
    expect(new Set(results.map((result) => result.record.id))).toEqual(new Set([winner?.id ?? -1]));
    expect(winner?.status).toBe("pending");
    expect(await count(`nonce = '${one.nonce}'`)).toBe(1);
    // The claims really ran on many connections at once, not one after another on one.
    const [activity] = await (dbs[0] as PgDb).$client`
      SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database()`;
    expect(activity.n).toBeGreaterThanOrEqual(INSTANCES * 2);
  });

  test(`${CLAIMS} concurrent claims of distinct authorizations: every one wins its own record`, async () => {
    const many = Array.from({ length: CLAIMS }, () => settlement());
    const results = await Promise.all(
      many.map((item, index) => (stores[index % INSTANCES] as AsyncSettlementStore).claim(item)),
    );
    expect(results.every((result) => result.created)).toBe(true);
    expect(new Set(results.map((result) => result.record.id)).size).toBe(CLAIMS);
    expect(results.map((result) => result.record.nonce)).toEqual(many.map((item) => item.nonce));
    expect(await count(`nonce IN (${many.map((item) => `'${item.nonce}'`).join(",")})`)).toBe(CLAIMS);
  });

  test("a claim racing the release of the record that holds its key ends with one owner, never an error", async () => {
    const [holder, ...others] = stores as [AsyncSettlementStore, ...AsyncSettlementStore[]];
    let freedAndTaken = 0;
    for (let round = 0; round < 20; round++) {
      const item = settlement();
      const first = await holder.claim(item);
      // The holder gives the payment up (its transaction was never sent) while the other instances claim it.
      const [claims] = await Promise.all([
        Promise.all(others.map((store) => store.claim(item))),
        holder.release(first.record.id),
      ]);
      const winners = claims.filter((claim) => claim.created);
      expect(winners.length).toBeLessThanOrEqual(1);
      const rows = await count(`nonce = '${item.nonce}'`);
      // Either someone took the freed key (one row, theirs) or every claim saw the holder's record before it went.
      if (winners.length === 1) {
        freedAndTaken += 1;
        expect(rows).toBe(1);
        expect((await holder.find(item))?.id).toBe(winners[0]?.record.id);
      } else {
        expect(claims.every((claim) => claim.record.id === first.record.id)).toBe(true);
      }
    }
    // The race happened both ways at least once in 20 rounds (else this test proved nothing about the retry).
    expect(freedAndTaken).toBeGreaterThan(0);
  });

  test("the key is the lowercase payer and nonce on a network, as on SQLite", async () => {
    const [a, b] = stores as [AsyncSettlementStore, AsyncSettlementStore];
    const mixed = settlement({ nonce: `0x${"AB".repeat(32)}` });
    expect((await a.claim(mixed)).created).toBe(true);
    const lower = { ...mixed, payer: mixed.payer.toLowerCase(), nonce: mixed.nonce.toLowerCase() };
    expect((await b.claim(lower)).created).toBe(false);
    expect((await b.claim({ ...mixed, network: "base" })).created).toBe(true);
    expect((await a.find(lower))?.payer).toBe(mixed.payer.toLowerCase());
  });

  test("the journal answers as the SQLite store does, step for step", async () => {
    const sqlite = createSettlementStore(openDatabase(":memory:"));
    const [pg, other] = stores as [AsyncSettlementStore, AsyncSettlementStore];
    const item = settlement();
    // Shape of what both answer, without the per-database id and timestamps.
    const view = (row: {
      status: string;
      txHash: string | null;
      blockNumber: number | null;
      error: string | null;
    }) => ({
      status: row.status,
      txHash: row.txHash,
      blockNumber: row.blockNumber,
      error: row.error,
    });
    const mine = (rows: { nonce: string }[]) =>
      rows.filter((row) => row.nonce === item.nonce).map((row) => view(row as never));

    const steps: [Record<string, unknown>, Record<string, unknown>] = [{}, {}];
    let n = 0;
    const run = async (step: (store: { sqlite: boolean }) => Promise<unknown>, label = `step ${++n}`) => {
      steps[0][label] = await step({ sqlite: true });
      steps[1][label] = await step({ sqlite: false });
    };
    const ids = { sqlite: 0, pg: 0 };
    await run(async ({ sqlite: s }) => {
      const claim = s ? sqlite.claim(item) : await pg.claim(item);
      if (s) ids.sqlite = claim.record.id;
      else ids.pg = claim.record.id;
      return { created: claim.created, ...view(claim.record) };
    });
    // A pending record is released (never sent), and the payment can be claimed again.
    await run(async ({ sqlite: s }) => (s ? sqlite.release(ids.sqlite) : await pg.release(ids.pg)));
    await run(async ({ sqlite: s }) => (s ? sqlite.find(item) : await pg.find(item)) ?? "none");
    await run(async ({ sqlite: s }) => {
      const claim = s ? sqlite.claim(item) : await other.claim(item);
      if (s) ids.sqlite = claim.record.id;
      else ids.pg = claim.record.id;
      return claim.created;
    });
    await run(async ({ sqlite: s }) =>
      s ? sqlite.markSent(ids.sqlite, "0xaa", "0xraw") : await pg.journalSent(ids.pg, "0xaa", "0xraw"),
    );
    // A sent record is neither released nor claimed again; it is unfinished until its outcome.
    await run(async ({ sqlite: s }) => (s ? sqlite.release(ids.sqlite) : await other.release(ids.pg)));
    await run(async ({ sqlite: s }) => (s ? sqlite.claim(item) : await other.claim(item)).created);
    await run(async ({ sqlite: s }) => mine(s ? sqlite.unfinished() : await pg.unfinished()));
    await run(async ({ sqlite: s }) =>
      s ? sqlite.markReplaced(ids.sqlite, "0xbb") : await pg.markReplaced(ids.pg, "0xbb"),
    );
    // An outcome without a hash keeps the stored one.
    await run(async ({ sqlite: s }) =>
      s
        ? sqlite.markOutcome(ids.sqlite, { status: "success", blockNumber: 12 })
        : await other.markOutcome(ids.pg, { status: "success", blockNumber: 12 }),
    );
    await run(async ({ sqlite: s }) => view((s ? sqlite.find(item) : await pg.find(item)) as never), "after success");
    await run(async ({ sqlite: s }) => mine(s ? sqlite.unfinished() : await pg.unfinished()));
    // A failed record is released only when asked to.
    await run(async ({ sqlite: s }) =>
      s
        ? sqlite.markOutcome(ids.sqlite, { status: "failed", error: "dropped" })
        : await pg.markOutcome(ids.pg, { status: "failed", error: "dropped" }),
    );
    await run(async ({ sqlite: s }) => (s ? sqlite.release(ids.sqlite) : await pg.release(ids.pg)));
    await run(async ({ sqlite: s }) => view((s ? sqlite.find(item) : await pg.find(item)) as never));
    await run(async ({ sqlite: s }) => (s ? sqlite.release(ids.sqlite, true) : await pg.release(ids.pg, true)));
    await run(async ({ sqlite: s }) => (s ? sqlite.find(item) : await pg.find(item)) ?? "none", "at the end");

    expect(steps[1]).toEqual(steps[0]);
    // The sequence said something: the record went pending → released → sent → success → failed → released.
    expect(steps[0]["after success"]).toEqual({ status: "success", txHash: "0xbb", blockNumber: 12, error: null });
    expect(steps[0]["at the end"]).toBe("none");
    expect(Object.keys(steps[0])).toHaveLength(17);
  });
});
