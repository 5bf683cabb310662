// The incognito leaf store on SQLite: each instance a connection of its own to one file.
import { afterAll, describe } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { asAsync } from "../../src/db/async-port";
import { openDatabase } from "../../src/db/open";
import { createLeafStore } from "../../src/incognito/leaf-store-sqlite";
import { leafStoreSuite } from "../support/leaf-store-suite";

const dir = mkdtempSync(join(tmpdir(), "relay402-leaves-"));
const path = join(dir, "relay402.sqlite");

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("incognito leaf store on SQLite", () => {
  leafStoreSuite({
    connect: async () => {
      const db = openDatabase(path);
      return { store: asAsync(createLeafStore(db)), close: async () => db.$client.close() };
    },
  });
});
