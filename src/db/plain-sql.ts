import { type Db, writeLazily } from "./open";
import type { PgDb } from "./postgres/open";

/** One statement of plain SQL with `?` placeholders and its parameters. */
export type Statement = { text: string; params: unknown[] };

/**
 * Plain SQL on either database's driver client, for stores that run one query text on both (the dashboard's and
 * the payment lookup's reads): nothing of drizzle's query builder, and nothing of PostgreSQL's to load on SQLite.
 */
export type PlainSql = {
  run(text: string, params: unknown[]): Promise<Record<string, unknown>[]>;
  /** Runs the statements in one transaction. */
  atomically(statements: readonly Statement[]): Promise<void>;
  /** The text as this driver takes it: what the plan tests EXPLAIN. */
  placeholders(text: string): string;
};

/** `?` placeholders as PostgreSQL's `$1, $2, …` (no query text here holds a literal `?`). */
export const numbered = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

/**
 * `commits: "lazy"` commits every write without waiting for the disk (writeLazily), for a store whose writes a crash
 * of the machine may lose because the service redoes them (the webhooks' leases and attempts: a delivery sent again,
 * as at-least-once allows): no fsync of theirs holds up the event loop, and the next synced commit puts them on disk.
 */
export const sqlitePlainSql = (db: Db, commits: "synced" | "lazy" = "synced"): PlainSql => {
  const commit = <T>(write: () => T): T => (commits === "lazy" ? writeLazily(db, write) : write());
  return {
    run: async (text, params) =>
      commit(() => db.$client.query(text).all(...(params as string[])) as Record<string, unknown>[]),
    // One synchronous transaction: nothing else runs on the connection in between.
    atomically: async (statements) =>
      commit(() =>
        db.$client.transaction(() => {
          for (const { text, params } of statements) db.$client.query(text).run(...(params as string[]));
        })(),
      ),
    placeholders: (text) => text,
  };
};

export const postgresPlainSql = (db: PgDb): PlainSql => ({
  run: async (text, params) =>
    (await db.$client.unsafe(numbered(text), params as never[])) as Record<string, unknown>[],
  atomically: async (statements) => {
    await db.$client.begin(async (tx) => {
      for (const { text, params } of statements) await tx.unsafe(numbered(text), params as never[]);
    });
  },
  placeholders: numbered,
});
