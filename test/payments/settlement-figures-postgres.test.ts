// The settlement journal's receipt figures on a real PostgreSQL (NUMERIC(78,0) columns read back as the same
// decimal strings): test/support/settlement-figures-suite.ts.
import { afterAll, beforeAll, describe } from "bun:test";
import { openPostgres, type PgDb } from "../../src/db/postgres/open";
import { createSettlementStorePostgres } from "../../src/settlement/settlement-store-postgres";
import { createSwapSettlementStorePostgres } from "../../src/swap/swap-store-postgres";
import { createX402SettlementStorePostgres } from "../../src/x402/settlement-store-postgres";
import { createTestDatabase } from "../support/postgres";
import { settlementFiguresSuite } from "../support/settlement-figures-suite";

let db: PgDb;

beforeAll(async () => {
  db = await openPostgres(await createTestDatabase("figures"), { max: 4 });
});

afterAll(async () => {
  await db.$client.close();
});

describe("settlement figures on PostgreSQL", () => {
  settlementFiguresSuite(async () => ({
    eoa: createSettlementStorePostgres(db),
    x402: createX402SettlementStorePostgres(db),
    swap: createSwapSettlementStorePostgres(db),
  }));
});
