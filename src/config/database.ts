import type { Config } from "./schema";

/**
 * Which database the service keeps its records in: the SQLite file of `databasePath` (the default, one instance),
 * or PostgreSQL when `databaseUrl` (DATABASE_URL) is a `postgres://` or `postgresql://` URL (several instances on
 * one database). The schema has already refused any other URL.
 */
export type DatabaseChoice = { kind: "sqlite"; path: string } | { kind: "postgres"; url: string };

export function databaseOf(config: Pick<Config, "databasePath" | "databaseUrl">): DatabaseChoice {
  return config.databaseUrl
    ? { kind: "postgres", url: config.databaseUrl }
    : { kind: "sqlite", path: config.databasePath };
}
