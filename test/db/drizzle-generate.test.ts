// The committed migrations against the schema files, as drizzle-kit sees them: `drizzle-kit generate` on a copy of
// the checkout must find nothing to migrate for either database. A schema change committed without its migration,
// or a journal/snapshot that lags behind the SQL (drizzle-kit would then re-create tables), makes it write a new .sql
// file, and this test fail. The runtime lists (src/db/**/migrations/index.ts) must name the journal's migrations in order.
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { MIGRATIONS } from "../../src/db/migrations";
import { POSTGRES_MIGRATIONS } from "../../src/db/postgres/migrations";

const root = resolve(import.meta.dir, "../..");
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

const dialects = [
  {
    name: "SQLite",
    config: "drizzle.config.ts",
    schema: [
      "src/db/schema.ts",
      "src/db/onboarding-schema.ts",
      "src/db/dashboard-schema.ts",
      "src/db/x402-schema.ts",
      "src/db/key-lease-schema.ts",
      "src/db/webhook-schema.ts",
    ],
    migrations: "src/db/migrations",
    runtime: MIGRATIONS,
  },
  {
    name: "PostgreSQL",
    config: "drizzle.postgres.config.ts",
    schema: [
      "src/db/postgres/schema.ts",
      "src/db/postgres/x402-schema.ts",
      "src/db/postgres/key-lease-schema.ts",
      "src/db/postgres/webhook-schema.ts",
    ],
    migrations: "src/db/postgres/migrations",
    runtime: POSTGRES_MIGRATIONS,
  },
];

type Dialect = (typeof dialects)[number];

/** A column the first table gains in a copied schema, without a migration. */
const NONCE = 'nonce: text("nonce").notNull(),';
const WITH_EXTRA = `${NONCE}\n    extra: text("extra"),`;

/** A temporary copy of what drizzle-kit reads for one dialect: its config, schema and migrations folder. */
function copyCheckout(dialect: Dialect): string {
  const dir = mkdtempSync(join(tmpdir(), "relay402-drizzle-"));
  temps.push(dir);
  cpSync(join(root, dialect.config), join(dir, dialect.config));
  for (const file of dialect.schema) cpSync(join(root, file), join(dir, file));
  cpSync(join(root, dialect.migrations), join(dir, dialect.migrations), { recursive: true });
  // The schema imports drizzle-orm, and drizzle-kit is run from the copy.
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
  return dir;
}

const sqlFiles = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.endsWith(".sql"))
    .sort();

/** Runs `drizzle-kit generate` in `dir` and answers the .sql files it added, and what it printed. */
function generate(dialect: Dialect, dir: string): { added: string[]; output: string } {
  const migrations = join(dir, dialect.migrations);
  const before = sqlFiles(migrations);
  const run = Bun.spawnSync(
    [process.execPath, join(root, "node_modules/drizzle-kit/bin.cjs"), "generate", "--config", dialect.config],
    // A change drizzle-kit cannot tell from a rename asks on the terminal: no terminal, and a bound, fail it instead.
    {
      cwd: dir,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, NO_COLOR: "1" },
      timeout: 30_000,
    },
  );
  const output = `${run.stdout.toString()}${run.stderr.toString()}`;
  if (run.exitCode !== 0) throw new Error(`drizzle-kit generate failed (${run.exitCode}):\n${output}`);
  return { added: sqlFiles(migrations).filter((name) => !before.includes(name)), output };
}

for (const dialect of dialects) {
  describe(`${dialect.name} migrations`, () => {
    test("drizzle-kit generate on a copy of the checkout produces no new migration", () => {
      const { added, output } = generate(dialect, copyCheckout(dialect));
      expect(added).toEqual([]);
      // Not merely no file: a change it would have to ask about (a rename?) fails without a terminal, writes
      // nothing and still exits 0.
      expect(output).toContain("No schema changes, nothing to migrate");
    });

    test("a schema change without its migration is caught (the check above can fail)", () => {
      const dir = copyCheckout(dialect);
      const schemaPath = join(dir, dialect.schema[0] as string);
      const schema = readFileSync(schemaPath, "utf8");
      expect(schema).toContain(NONCE);
      writeFileSync(schemaPath, schema.replace(NONCE, WITH_EXTRA));
      const { added } = generate(dialect, dir);
      expect(added).toHaveLength(1);
      expect(readFileSync(join(dir, dialect.migrations, added[0]!), "utf8")).toContain("extra");
    });

    test("the journal, the .sql files and the runtime list name the same migrations in order", () => {
      const folder = join(root, dialect.migrations);
      const journal = JSON.parse(readFileSync(join(folder, "meta/_journal.json"), "utf8")) as {
        entries: { idx: number; tag: string }[];
      };
      const tags = journal.entries.map((entry) => entry.tag);
      expect(journal.entries.map((entry) => entry.idx)).toEqual(tags.map((_, i) => i));
      expect(sqlFiles(folder)).toEqual(tags.map((tag) => `${tag}.sql`));
      expect(dialect.runtime.map((migration) => migration.name)).toEqual(tags);
      const snapshots = readdirSync(join(folder, "meta")).filter((name) => name.endsWith("_snapshot.json"));
      expect(snapshots.sort()).toEqual(tags.map((tag) => `${tag.slice(0, 4)}_snapshot.json`));
    });
  });
}
