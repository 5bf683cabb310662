import { accessSync, constants, existsSync } from "node:fs";
import { dirname } from "node:path";
import { SQL } from "bun";
import type { DatabaseChoice } from "../config/database";

/**
 * Whether the start could open the configured database, checked without changing it (no file created, no
 * migration): PostgreSQL answers `SELECT 1`; the SQLite file, or the nearest existing folder of its path, is
 * writable. The problem names the setting and the cause, never the URL (it may hold a password).
 */
export async function databaseProblem(database: DatabaseChoice): Promise<string | undefined> {
  if (database.kind === "postgres") {
    const client = new SQL(database.url, { max: 1, connectionTimeout: 5 });
    try {
      await client`SELECT 1`;
      return undefined;
    } catch (error) {
      const cause = (error as { code?: string }).code ?? (error as Error).name;
      return `databaseUrl (DATABASE_URL): PostgreSQL could not be opened (${cause})`;
    } finally {
      await client.close().catch(() => {});
    }
  }
  if (database.path === ":memory:") return undefined;
  let existing = database.path;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  try {
    accessSync(existing, constants.W_OK);
    return undefined;
  } catch {
    return `databasePath (DATABASE_PATH): ${existing} is not writable`;
  }
}
