import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { type BunSQLiteDatabase, drizzle } from "drizzle-orm/bun-sqlite";
import { MIGRATIONS } from "./migrations";
import * as schema from "./schema";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

/** Opens (or creates) the SQLite file in WAL mode and applies the committed migrations that are not applied yet. */
export function openDatabase(path: string): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.run("PRAGMA journal_mode = WAL");
  // FULL, not WAL's cheaper NORMAL: every commit is on disk before the call returns, so a record written before a
  // broadcast outlives a crash of the machine, not only of the process (docs/security.md, "Durability"). Writes the chain
  // can make good opt out one by one (writeLazily).
  sqlite.run("PRAGMA synchronous = FULL");
  sqlite.run("PRAGMA busy_timeout = 5000");
  sqlite.run("PRAGMA foreign_keys = ON");
  migrate(sqlite);
  return drizzle({ client: sqlite, schema }) as Db;
}

function migrate(sqlite: Database): void {
  sqlite.run("CREATE TABLE IF NOT EXISTS relay402_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)");
  const applied = new Set(
    sqlite
      .query<{ name: string }, []>("SELECT name FROM relay402_migrations")
      .all()
      .map((row) => row.name),
  );
  for (const migration of MIGRATIONS) {
    if (applied.has(migration.name)) continue;
    sqlite.transaction(() => {
      for (const statement of migration.sql.split("--> statement-breakpoint")) {
        if (statement.trim()) sqlite.run(statement);
      }
      sqlite.run("INSERT INTO relay402_migrations (name, applied_at) VALUES (?, ?)", [
        migration.name,
        new Date().toISOString(),
      ]);
    })();
  }
}

/**
 * Commits `write` without waiting for the disk (WAL with synchronous=NORMAL for this one statement): the commit
 * survives a crash of the process, and the next ordinary commit's sync puts it on disk with its own (a WAL is
 * synced as one file). Only for records whose loss in a crash of the machine the chain makes good: a claim made
 * before anything was signed, a release, an outcome (the record stays "sent" and is resumed from the chain at
 * start). Never for what must be durable before something leaves the process (a transaction before its broadcast,
 * the one success answer of a payment).
 */
export function writeLazily<T>(db: Db, write: () => T): T {
  // Not prepared once: SQLite applies this pragma when the statement is compiled, not when it runs.
  db.$client.run("PRAGMA synchronous = NORMAL");
  try {
    return write();
  } finally {
    db.$client.run("PRAGMA synchronous = FULL");
  }
}

export function isDatabaseHealthy(db: Db): boolean {
  try {
    db.$client.query("SELECT 1").get();
    return true;
  } catch {
    return false;
  }
}
