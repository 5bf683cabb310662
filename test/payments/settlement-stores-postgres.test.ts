// The x402 and EOA swap settlement stores on a real PostgreSQL, raced from several instances' pools: one claim wins
// per key, x402's success answer is taken once, and each store answers as its SQLite twin step for step.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openDatabase } from "../../src/db/open";
import { openPostgres, type PgDb } from "../../src/db/postgres/open";
import { createSwapSettlementStore, type NewSwapSettlement } from "../../src/swap/swap-store";
import { type AsyncSwapSettlementStore, createSwapSettlementStorePostgres } from "../../src/swap/swap-store-postgres";
import { createX402SettlementStore, type NewX402Settlement } from "../../src/x402/settlement-store";
import {
  type AsyncX402SettlementStore,
  createX402SettlementStorePostgres,
} from "../../src/x402/settlement-store-postgres";
import { createTestDatabase } from "../support/postgres";

const INSTANCES = 4;
const CLAIMS = 40;

let dbs: PgDb[] = [];
let x402Stores: AsyncX402SettlementStore[] = [];
let swapStores: AsyncSwapSettlementStore[] = [];

let nonces = 0;
const nextNonce = () => {
  nonces += 1;
  return `0x${nonces.toString(16).padStart(64, "0")}`;
};

const x402Settlement = (): NewX402Settlement => ({
  network: "base",
  contract: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  payer: "0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266",
  nonce: nextNonce(),
  recipient: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  amount: "1250000",
  validAfter: 0,
  validBefore: 4_102_444_800,
  signature: `0x${"cd".repeat(65)}`,
  paymentId: null,
});

const swapSettlement = (): NewSwapSettlement => ({
  network: "bsc",
  payer: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
  nonce: nextNonce(),
  sellToken: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
  buyToken: "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512",
  sellAmount: "40000000000000000000",
  minBuyAmount: "1",
  recipient: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
  fee: "120000000000000000",
  validAfter: 0,
  validBefore: 4_102_444_800,
  signature: `0x${"ef".repeat(65)}`,
  authorizationHash: `0x${"12".repeat(32)}`,
  paymentId: null,
});

const pick = <T>(items: T[], index: number) => items[index % items.length] as T;

/** A record without what each database assigns itself (id, times), to compare the two stores' rows. */
const strip = <T extends object | undefined>(row: T) => {
  if (!row) return row;
  const { id: _id, createdAt: _c, updatedAt: _u, sentAt, minedAt, ...rest } = row as Record<string, unknown>;
  return { ...rest, sentAt: sentAt !== null, minedAt: minedAt !== null };
};

beforeAll(async () => {
  const url = await createTestDatabase("stores");
  dbs = await Promise.all(Array.from({ length: INSTANCES }, () => openPostgres(url, { max: 6 })));
  x402Stores = dbs.map((db) => createX402SettlementStorePostgres(db));
  swapStores = dbs.map((db) => createSwapSettlementStorePostgres(db));
});

afterAll(async () => {
  await Promise.all(dbs.map((db) => db.$client.close()));
});

describe("x402 settlement store on PostgreSQL", () => {
  test(`${CLAIMS} concurrent claims of one payment from ${INSTANCES} instances: one wins, all see its record`, async () => {
    const one = x402Settlement();
    const results = await Promise.all(Array.from({ length: CLAIMS }, (_, index) => pick(x402Stores, index).claim(one)));
    expect(results.filter((result) => result.created)).toHaveLength(1);
    expect(new Set(results.map((result) => result.record.id)).size).toBe(1);
    // The key is case-insensitive, as on SQLite: a checksummed and a lower-cased spelling are one payment.
    const again = await pick(x402Stores, 1).claim({ ...one, contract: one.contract.toLowerCase() });
    expect(again.created).toBe(false);
  });

  test("the success answer is taken exactly once across instances, and only once the payment succeeded", async () => {
    const { record } = await pick(x402Stores, 0).claim(x402Settlement());
    expect(await pick(x402Stores, 1).takeSuccessAnswer(record.id)).toBe(false); // pending: nothing to answer yet
    await pick(x402Stores, 2).markOutcome(record.id, { status: "success", txHash: "0xabc", blockNumber: 7 });
    const taken = await Promise.all(
      Array.from({ length: CLAIMS }, (_, index) => pick(x402Stores, index).takeSuccessAnswer(record.id)),
    );
    expect(taken.filter(Boolean)).toHaveLength(1);
  });

  test("answers as the SQLite store, step for step", async () => {
    const sqlite = createX402SettlementStore(openDatabase(":memory:"));
    const pg = pick(x402Stores, 3);
    const settlement = x402Settlement();
    const a = sqlite.claim(settlement);
    const b = await pg.claim(settlement);
    expect(strip(b.record)).toEqual(strip(a.record));
    sqlite.markSent(a.record.id, "0x01", "0xraw");
    await pg.journalSent(b.record.id, "0x01", "0xraw");
    expect(strip(await pg.find(settlement))).toEqual(strip(sqlite.find(settlement)));
    expect((await pg.unfinished()).map((row) => row.id)).toContain(b.record.id);
    sqlite.markOutcome(a.record.id, { status: "failed", error: "transaction dropped" });
    await pg.markOutcome(b.record.id, { status: "failed", error: "transaction dropped" });
    expect(strip(await pg.find(settlement))).toEqual(strip(sqlite.find(settlement)));
    // x402's release drops a failed record too, so the payment may be settled again.
    sqlite.release(a.record.id);
    await pg.release(b.record.id);
    expect(sqlite.find(settlement)).toBeUndefined();
    expect(await pg.find(settlement)).toBeUndefined();
  });
});

describe("EOA swap settlement store on PostgreSQL", () => {
  test(`${CLAIMS} concurrent claims of one swap from ${INSTANCES} instances: one wins; distinct swaps all win`, async () => {
    const one = swapSettlement();
    const results = await Promise.all(Array.from({ length: CLAIMS }, (_, index) => pick(swapStores, index).claim(one)));
    expect(results.filter((result) => result.created)).toHaveLength(1);
    expect(new Set(results.map((result) => result.record.id)).size).toBe(1);
    const many = Array.from({ length: CLAIMS }, () => swapSettlement());
    const distinct = await Promise.all(many.map((item, index) => pick(swapStores, index).claim(item)));
    expect(distinct.every((result) => result.created)).toBe(true);
  });

  test("answers as the SQLite store, step for step", async () => {
    const sqlite = createSwapSettlementStore(openDatabase(":memory:"));
    const pg = pick(swapStores, 2);
    const settlement = swapSettlement();
    const a = sqlite.claim(settlement);
    const b = await pg.claim(settlement);
    expect(strip(b.record)).toEqual(strip(a.record));
    sqlite.markSent(a.record.id, "0x02", "0xraw");
    await pg.markSent(b.record.id, "0x02", "0xraw");
    sqlite.markReplaced(a.record.id, "0x03");
    await pg.markReplaced(b.record.id, "0x03");
    sqlite.markOutcome(a.record.id, { status: "success", blockNumber: 9 });
    await pg.markOutcome(b.record.id, { status: "success", blockNumber: 9 });
    expect(strip(await pg.find(settlement))).toEqual(strip(sqlite.find(settlement)));
    expect((await pg.find(settlement))?.txHash).toBe("0x03"); // an outcome without a hash keeps the stored one
    // A settled record is never released.
    sqlite.release(a.record.id, true);
    await pg.release(b.record.id, true);
    expect(await pg.find(settlement)).toBeDefined();
  });
});
