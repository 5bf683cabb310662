// The deployment store on a real PostgreSQL (test/support/postgres.ts), each instance a pool of its own: the
// behaviour of test/support/deployment-store-suite.ts, the same as SQLite's, with the races decided by the database.
import { beforeAll, describe } from "bun:test";
import { openPostgres } from "../../src/db/postgres/open";
import { createDeploymentStorePostgres } from "../../src/deploy/deployment-store-postgres";
import { deploymentStepsSuite } from "../support/deployment-steps-suite";
import { deploymentStoreSuite } from "../support/deployment-store-suite";
import { createTestDatabase } from "../support/postgres";

let url = "";

beforeAll(async () => {
  url = await createTestDatabase("deployment_store");
  await (await openPostgres(url, { max: 1 })).$client.close(); // migrated once, before the instances race
});

describe("deployment store on PostgreSQL", () => {
  const database: Parameters<typeof deploymentStoreSuite>[0] = {
    connect: async () => {
      const db = await openPostgres(url, { max: 5 });
      return { store: createDeploymentStorePostgres(db), close: () => db.$client.close() };
    },
  };
  deploymentStoreSuite(database);
  deploymentStepsSuite(database);
});
