// Executor key leases on SQLite: the same behaviour, each instance a connection of its own to one file.
import { afterAll, describe } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKeyLeaseStoreSqlite } from "../../src/chain/key-lease-store-sqlite";
import { openDatabase } from "../../src/db/open";
import { keyLeaseSuite } from "../support/key-leases-suite";

const dir = mkdtempSync(join(tmpdir(), "relay402-key-leases-"));
const path = join(dir, "relay402.sqlite");
const admin = openDatabase(path);

afterAll(() => {
  admin.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("key leases on SQLite", () => {
  keyLeaseSuite({
    connect: async () => {
      const db = openDatabase(path);
      return { store: createKeyLeaseStoreSqlite(db), close: async () => db.$client.close() };
    },
    exec: async (statement) => {
      admin.$client.run(statement);
    },
  });
});
