// DATABASE_URL (databaseUrl): absent means the SQLite file as before; a postgres:// or postgresql:// URL selects
// PostgreSQL (several instances, test/ops/instances.test.ts); anything else is a bad value. The URL may hold a
// password: no message quotes it.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { databaseOf } from "../../src/config/database";
import { ConfigError, loadConfig } from "../../src/config/load";
import { DatabaseUnavailableError } from "../../src/db/database-unavailable";
import { openStores } from "../../src/db/stores";
import { bscProductionConfig } from "../support/production-config";

const { env: baseEnv, file } = bscProductionConfig();
const password = "s3cret-db-password";

function refusal(env: Record<string, string>, overrides?: Record<string, unknown>): string {
  try {
    loadConfig({ env: { ...baseEnv, ...env }, file, overrides });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("the config was accepted");
}

describe("DATABASE_URL", () => {
  test("absent (or empty): the SQLite file of databasePath, as before", () => {
    const config = loadConfig({ env: { ...baseEnv, DATABASE_PATH: "data/x.sqlite" }, file });
    expect(config.databaseUrl).toBeUndefined();
    expect(databaseOf(config)).toEqual({ kind: "sqlite", path: "data/x.sqlite" });
    expect(databaseOf(loadConfig({ env: { ...baseEnv, DATABASE_URL: "" }, file }))).toEqual({
      kind: "sqlite",
      path: "data/relay402.sqlite",
    });
  });

  test("a postgres:// or postgresql:// URL selects PostgreSQL, from the environment or the file", () => {
    for (const url of [
      `postgres://relay402:${password}@db.internal:5432/relay402`,
      `postgresql://relay402:${password}@127.0.0.1/relay402?sslmode=require`,
    ]) {
      expect(databaseOf({ databasePath: "data/relay402.sqlite", databaseUrl: url })).toEqual({ kind: "postgres", url });
      expect(databaseOf(loadConfig({ env: { ...baseEnv, DATABASE_URL: url }, file }))).toEqual({
        kind: "postgres",
        url,
      });
    }
    const url = `postgres://u:${password}@h/db`;
    expect(databaseOf(loadConfig({ env: baseEnv, file, overrides: { databaseUrl: url } }))).toEqual({
      kind: "postgres",
      url,
    });
  });

  test("any other URL is a bad value naming the field, never quoting it", () => {
    for (const url of [
      `mysql://root:${password}@127.0.0.1/relay402`,
      `sqlite://data/${password}.sqlite`,
      `postgres://u:${password}@host-without-database`,
      `postgres://u:${password}@h/db with space`,
    ]) {
      const message = refusal({ DATABASE_URL: url });
      expect(message).toContain("databaseUrl");
      expect(message).not.toContain(password);
    }
  });

  test("a PostgreSQL that does not answer: the start fails naming the setting, never the URL", async () => {
    const url = `postgres://relay402:${password}@127.0.0.1:1/relay402`;
    const failed = await openStores(
      { kind: "postgres", url },
      { afterReverts: 3, windowSeconds: 60, swaps: { afterReverts: 3, windowSeconds: 60 }, now: () => 0 },
    ).then(
      () => null,
      (error: Error) => error,
    );
    expect(failed).toBeInstanceOf(DatabaseUnavailableError);
    expect(failed?.message).toStartWith("databaseUrl (DATABASE_URL): PostgreSQL could not be opened (");
    expect(failed?.message).not.toContain(password);
    expect(failed?.message).not.toContain("127.0.0.1");
  });

  test("the service binary exits 1 with a reason, without a stack trace or the URL", () => {
    const bun = join(import.meta.dir, "..", "..", "node_modules", ".bin", "bun");
    const result = spawnSync(bun, ["src/main.ts"], {
      cwd: join(import.meta.dir, "..", ".."),
      env: {
        PATH: process.env.PATH,
        ...baseEnv,
        RELAY402_CONFIG: file,
        DATABASE_URL: `postgres://relay402:${password}@127.0.0.1:1/relay402`,
      },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("start refused:");
    expect(result.stderr + result.stdout).not.toContain(password);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
