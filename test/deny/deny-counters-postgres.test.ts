// Deny counters on a real PostgreSQL (test/support/postgres.ts): each instance a pool of its own.
import { beforeAll, describe } from "bun:test";
import { openPostgres } from "../../src/db/postgres/open";
import { createPostgresDenyCounters } from "../../src/deny/postgres-deny-counters";
import { denyCountersSuite } from "../support/deny-counters-suite";
import { createTestDatabase } from "../support/postgres";

let url = "";

beforeAll(async () => {
  url = await createTestDatabase("deny_counters");
  await (await openPostgres(url, { max: 1 })).$client.close(); // migrated once, before the instances race
});

describe("deny counters on PostgreSQL", () => {
  denyCountersSuite({
    connect: async (policy) => {
      const db = await openPostgres(url, { max: 5 });
      return { counters: createPostgresDenyCounters(db, policy), close: () => db.$client.close() };
    },
  });
});
