// The deployment store on SQLite through the async port (asAsync), each instance a connection of its own to one file:
// the behaviour of test/support/deployment-store-suite.ts, as PostgreSQL's adapter must show it too.
import { afterAll, describe } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { asAsync } from "../../src/db/async-port";
import { openDatabase } from "../../src/db/open";
import { createDeploymentStore } from "../../src/deploy/deployment-store-sqlite";
import { deploymentStepsSuite } from "../support/deployment-steps-suite";
import { deploymentStoreSuite } from "../support/deployment-store-suite";

const dir = mkdtempSync(join(tmpdir(), "relay402-deployment-store-"));
const path = join(dir, "relay402.sqlite");
openDatabase(path).$client.close(); // migrated once, before the instances connect

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("deployment store on SQLite", () => {
  const database: Parameters<typeof deploymentStoreSuite>[0] = {
    connect: async () => {
      const db = openDatabase(path);
      return { store: asAsync(createDeploymentStore(db)), close: async () => db.$client.close() };
    },
  };
  deploymentStoreSuite(database);
  deploymentStepsSuite(database);
});
