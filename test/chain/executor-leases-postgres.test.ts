// The executor on key leases over a real PostgreSQL (test/support/postgres.ts), each instance a pool of its own, on
// the test devnet: test/support/executor-leases-suite.ts.
import { afterAll, beforeAll, describe } from "bun:test";
import { SQL } from "bun";
import { createKeyLeaseStorePostgres } from "../../src/chain/key-lease-store-postgres";
import { openPostgres } from "../../src/db/postgres/open";
import { executorLeaseSuite } from "../support/executor-leases-suite";
import { createTestDatabase } from "../support/postgres";

let url = "";
let admin: SQL | undefined;

beforeAll(async () => {
  url = await createTestDatabase("executor_leases");
  await (await openPostgres(url, { max: 1 })).$client.close(); // migrated once, before the instances race
  admin = new SQL(url, { max: 1 });
});
afterAll(async () => {
  await admin?.close();
});

describe("the executor on key leases, PostgreSQL", () => {
  executorLeaseSuite({
    connect: async () => {
      const db = await openPostgres(url, { max: 5 });
      return { store: createKeyLeaseStorePostgres(db), close: () => db.$client.close() };
    },
    exec: async (statement) => {
      await (admin as SQL).unsafe(statement);
    },
  });
});
