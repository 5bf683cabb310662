// The incognito leaf store on a real PostgreSQL (test/support/postgres.ts): each instance a pool of its own.
import { beforeAll, describe } from "bun:test";
import { openPostgres } from "../../src/db/postgres/open";
import { createLeafStorePostgres } from "../../src/incognito/leaf-store-postgres";
import { leafStoreSuite } from "../support/leaf-store-suite";
import { createTestDatabase } from "../support/postgres";

let url = "";

beforeAll(async () => {
  url = await createTestDatabase("leaf_store");
  await (await openPostgres(url, { max: 1 })).$client.close(); // migrated once, before the instances race
});

describe("incognito leaf store on PostgreSQL", () => {
  leafStoreSuite({
    connect: async () => {
      const db = await openPostgres(url, { max: 5 });
      return { store: createLeafStorePostgres(db), close: () => db.$client.close() };
    },
  });
});
