import type { Config } from "./schema";

/**
 * Which database the service keeps its records in: the SQLite file of `databasePath` (the default, one instance),
 * or PostgreSQL when `databaseUrl` (DATABASE_URL) is a `postgres://` or `postgresql://` URL (several instances on
 * one database, issue 14). The schema has already refused any other URL.
 */
export type DatabaseChoice = { kind: "sqlite"; path: string } | { kind: "postgres"; url: string };

export function databaseOf(config: Pick<Config, "databasePath" | "databaseUrl">): DatabaseChoice {
  return config.databaseUrl
    ? { kind: "postgres", url: config.databaseUrl }
    : { kind: "sqlite", path: config.databasePath };
}

/**
 * The start's refusal while only the schema, the migrations and the settlement claim exist for PostgreSQL: a
 * service on PostgreSQL with SQLite's flows would settle twice across instances, so it does not start at all.
 */
export const POSTGRES_NOT_AVAILABLE =
  "databaseUrl (DATABASE_URL): PostgreSQL stores are not available yet in this version; unset it to keep the " +
  "records in the SQLite file of databasePath (DATABASE_PATH)";
