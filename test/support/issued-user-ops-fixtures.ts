// Fixtures of the issued-UserOp store's suites (issued-user-ops-suite.ts, issued-user-op-reservations-suite.ts):
// fresh databases with several instances on each, and new issued UserOps.
import { afterAll } from "bun:test";
import type { AsyncIssuedUserOpStore, NewIssuedUserOp } from "../../src/userops/issued-user-op-store";

type Connection = { store: AsyncIssuedUserOpStore; close(): Promise<void> };

export type IssuedStoreDatabase = {
  /** A new, empty, migrated database; `connect` opens one instance's connection (pool) to it. */
  fresh(): Promise<{ connect(): Promise<Connection> }>;
};

export const NOW = 1_800_000_000;
export const INSTANCES = 4;
export const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
export const logger = { info: () => {}, warn: () => {}, error: () => {} };

/** Instances on fresh databases (closed after the suite), and UserOps to issue on them. */
export function issuedStoreFixtures(database: IssuedStoreDatabase) {
  const connections: Connection[] = [];
  afterAll(async () => {
    for (const connection of connections.splice(0)) await connection.close().catch(() => undefined);
  });

  /** A fresh database and `count` instances on it. */
  async function instances(count: number): Promise<AsyncIssuedUserOpStore[]> {
    const db = await database.fresh();
    const opened = await Promise.all(Array.from({ length: count }, () => db.connect()));
    connections.push(...opened);
    return opened.map((connection) => connection.store);
  }

  let counter = 0;
  const hashOf = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
  function newIssue(sender: string, expiresAt: number, over: Partial<NewIssuedUserOp> = {}): NewIssuedUserOp {
    counter += 1;
    return {
      userOpHash: hashOf(counter),
      network: "bsc",
      kind: "payment",
      sender,
      owner: address(1),
      userOp: JSON.stringify({ nonce: `0x${counter.toString(16)}` }),
      context: "{}",
      expiresAt,
      ...over,
    };
  }
  async function issue(store: AsyncIssuedUserOpStore, ...args: Parameters<typeof newIssue>) {
    const record = newIssue(...args);
    await store.issue(record);
    return record.userOpHash;
  }

  return { instances, newIssue, issue, hashOf };
}
