// The issued-UserOp store on SQLite (asAsync over the synchronous store, as the service builds it): each instance
// a connection of its own to one file, a fresh file per test.
import { afterAll, describe } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { asAsync } from "../../src/db/async-port";
import { openDatabase } from "../../src/db/open";
import { createIssuedUserOpStore } from "../../src/userops/issued-user-op-store-sqlite";
import { issuedUserOpReservationsSuite } from "../support/issued-user-op-reservations-suite";
import { issuedUserOpStoreSuite } from "../support/issued-user-ops-suite";

const dir = mkdtempSync(join(tmpdir(), "relay402-issued-"));
let files = 0;

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("issued UserOps on SQLite", () => {
  const database: Parameters<typeof issuedUserOpStoreSuite>[0] = {
    fresh: async () => {
      const path = join(dir, `relay402-${++files}.sqlite`);
      return {
        connect: async () => {
          const db = openDatabase(path);
          return { store: asAsync(createIssuedUserOpStore(db)), close: async () => db.$client.close() };
        },
      };
    },
  };
  issuedUserOpStoreSuite(database);
  issuedUserOpReservationsSuite(database);
});
