// The issued-UserOp store on a real PostgreSQL (test/support/postgres.ts): each instance a pool of its own, a
// fresh database per test.
import { describe } from "bun:test";
import { openPostgres } from "../../src/db/postgres/open";
import { createIssuedUserOpStorePostgres } from "../../src/userops/issued-user-op-store-postgres";
import { issuedUserOpStoreSuite } from "../support/issued-user-ops-suite";
import { createTestDatabase } from "../support/postgres";

describe("issued UserOps on PostgreSQL", () => {
  issuedUserOpStoreSuite({
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
  });
});
