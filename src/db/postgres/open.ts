import { SQL } from "bun";
import { type BunSQLDatabase, drizzle } from "drizzle-orm/bun-sql";
import { POSTGRES_MIGRATIONS } from "./migrations";
import * as schema from "./schema";

export type PgDb = BunSQLDatabase<typeof schema> & { $client: SQL };

/**
 * The key of the advisory lock migrations run under: several instances starting at once on one database apply
 * each migration once, the others wait for it and then find it applied. (Any constant that no other lock of
 * this database uses; these are "r402" in ASCII.)
 */
const MIGRATION_LOCK = 0x72343032;

/**
 * Connects to PostgreSQL (`postgres://` or `postgresql://` URL) through Bun's built-in client and applies the
 * committed migrations that are not applied yet. `max` bounds the pool: each connection is a server process.
 */
export async function openPostgres(url: string, options: { max?: number } = {}): Promise<PgDb> {
  const client = new SQL(url, { max: options.max ?? 10 });
  try {
    await migratePostgres(client);
  } catch (error) {
    await client.close();
    throw error;
  }
  return drizzle({ client, schema }) as PgDb;
}

/**
 * Applies every migration of POSTGRES_MIGRATIONS not recorded in relay402_migrations (the same bookkeeping table as
 * the SQLite file's), in one transaction that holds a transaction-scoped advisory lock: PostgreSQL's DDL is
 * transactional, so a crash or a failing statement leaves the database as the previous version left it, and two
 * instances starting at once never apply a migration twice (the second waits, then finds it recorded).
 * Answers the names it applied.
 */
export async function migratePostgres(client: SQL): Promise<string[]> {
  const applied: string[] = [];
  await client.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`CREATE TABLE IF NOT EXISTS relay402_migrations (name text PRIMARY KEY, applied_at text NOT NULL)`;
    const done = new Set((await tx`SELECT name FROM relay402_migrations`).map((row: { name: string }) => row.name));
    for (const migration of POSTGRES_MIGRATIONS) {
      if (done.has(migration.name)) continue;
      for (const statement of migration.sql.split("--> statement-breakpoint")) {
        if (statement.trim()) await tx.unsafe(statement);
      }
      await tx`INSERT INTO relay402_migrations (name, applied_at) VALUES (${migration.name}, ${new Date().toISOString()})`;
      applied.push(migration.name);
    }
  });
  return applied;
}

export async function isPostgresHealthy(db: PgDb): Promise<boolean> {
  try {
    await db.$client`SELECT 1`;
    return true;
  } catch {
    return false;
  }
}
