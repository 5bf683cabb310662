// The funding kernel's store in one SQLite file, opened by several connections as several processes would.
import { describe } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/open";
import { createFundingStoreSqlite } from "../../src/onboarding/funding-store";
import { fundingStoreSuite } from "./funding-store-suite";

const path = join(mkdtempSync(join(tmpdir(), "relay402-funding-")), "relay402.sqlite");

describe("funded approvals on SQLite", () => {
  fundingStoreSuite(async () => {
    const db = openDatabase(path);
    return { store: createFundingStoreSqlite(db), close: async () => db.$client.close() };
  });
});
