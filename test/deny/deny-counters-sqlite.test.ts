// Deny counters on SQLite: each instance a connection of its own to one file.
import { afterAll, describe } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/open";
import { createSqliteDenyCounters } from "../../src/deny/sqlite-deny-counters";
import { denyCountersSuite } from "../support/deny-counters-suite";

const dir = mkdtempSync(join(tmpdir(), "relay402-deny-"));
const path = join(dir, "relay402.sqlite");

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("deny counters on SQLite", () => {
  denyCountersSuite({
    connect: async (policy) => {
      const db = openDatabase(path);
      return { counters: createSqliteDenyCounters(db, policy), close: async () => db.$client.close() };
    },
  });
});
