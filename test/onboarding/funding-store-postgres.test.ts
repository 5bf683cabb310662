// The funding kernel's store on a real PostgreSQL (test/support/postgres.ts): each connection a pool of its own.
import { beforeAll, describe } from "bun:test";
import { openPostgres } from "../../src/db/postgres/open";
import { createFundingStorePostgres } from "../../src/onboarding/funding-store-postgres";
import { createTestDatabase } from "../support/postgres";
import { fundingStoreSuite } from "./funding-store-suite";

let url = "";

beforeAll(async () => {
  url = await createTestDatabase("funded_approvals");
  await (await openPostgres(url, { max: 1 })).$client.close(); // migrated once, before the connections race
});

describe("funded approvals on PostgreSQL", () => {
  fundingStoreSuite(async () => {
    const db = await openPostgres(url, { max: 5 });
    return { store: createFundingStorePostgres(db), close: () => db.$client.close() };
  });
});
