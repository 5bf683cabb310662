// The executor on key leases over SQLite, each instance a connection of its own to one file, on the test devnet:
// test/support/executor-leases-suite.ts. (The service's single instance uses one fixed id; the leases behave the
// same whatever the ids.)
import { afterAll, describe } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKeyLeaseStoreSqlite } from "../../src/chain/key-lease-store-sqlite";
import { openDatabase } from "../../src/db/open";
import { executorLeaseSuite } from "../support/executor-leases-suite";

const dir = mkdtempSync(join(tmpdir(), "relay402-executor-leases-"));
const path = join(dir, "relay402.sqlite");
const admin = openDatabase(path);

afterAll(() => {
  admin.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the executor on key leases, SQLite", () => {
  executorLeaseSuite({
    connect: async () => {
      const db = openDatabase(path);
      return { store: createKeyLeaseStoreSqlite(db), close: async () => db.$client.close() };
    },
    exec: async (statement) => {
      admin.$client.run(statement);
    },
  });
});
