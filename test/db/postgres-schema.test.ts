// The PostgreSQL schema against the SQLite one, both as their committed migrations leave a database: every table,
// column, key and index of the migrated SQLite file exists in the migrated PostgreSQL database with a compatible
// type, and nothing more, so that the two dialects' migrations cannot drift apart. Both sides are read from the
// databases' catalogs (and drizzle's table configs), never from a list in this file.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { is } from "drizzle-orm";
import { PgTable, getTableConfig as pgTableConfig } from "drizzle-orm/pg-core";
import { SQLiteTable, getTableConfig as sqliteTableConfig } from "drizzle-orm/sqlite-core";
import { openDatabase } from "../../src/db/open";
import * as pgKeyLeaseSchema from "../../src/db/postgres/key-lease-schema";
import { migratePostgres, openPostgres, type PgDb } from "../../src/db/postgres/open";
import * as pgMainSchema from "../../src/db/postgres/schema";
import * as pgWebhookSchema from "../../src/db/postgres/webhook-schema";
import * as pgX402Schema from "../../src/db/postgres/x402-schema";
import * as sqliteSchema from "../../src/db/schema";
import { createTestDatabase } from "../support/postgres";

/** Every pg-core schema file drizzle.postgres.config.ts reads. */
const pgSchema = { ...pgMainSchema, ...pgX402Schema, ...pgKeyLeaseSchema, ...pgWebhookSchema };

type Column = { type: string; notNull: boolean; hasDefault: boolean };
type Index = { name?: string; columns: string[]; unique: boolean; primary: boolean; predicate?: string[] };
type Table = { columns: Map<string, Column>; indexes: Index[]; foreignKeys: string[] };

/** The column names a partial index's predicate mentions (`reserved = 1` on SQLite, `reserved` on PostgreSQL). */
const predicateColumns = (predicate: string, columns: Iterable<string>) =>
  [...columns].filter((column) => new RegExp(`\\b${column}\\b`).test(predicate)).sort();

function readSqlite(): Map<string, Table> {
  const sqlite = openDatabase(":memory:").$client;
  const tables = new Map<string, Table>();
  const names = sqlite
    .query<{ name: string }, []>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'relay402_migrations'",
    )
    .all();
  for (const { name } of names) {
    const info = sqlite
      .query<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }, []>(
        `PRAGMA table_info(${name})`,
      )
      .all();
    const columns = new Map(
      info.map((c) => [
        c.name,
        // A rowid primary key is NOT NULL whatever its declaration says.
        { type: c.type.toLowerCase(), notNull: c.notnull === 1 || c.pk > 0, hasDefault: c.dflt_value !== null },
      ]),
    );
    const indexes: Index[] = [];
    const pk = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    if (pk.length) indexes.push({ columns: pk.map((c) => c.name), unique: true, primary: true });
    const list = sqlite
      .query<{ name: string; unique: number; origin: string; partial: number }, []>(`PRAGMA index_list(${name})`)
      .all();
    for (const index of list) {
      if (index.origin === "pk") continue; // the composite primary key's own index, counted above
      const keyColumns = sqlite
        .query<{ name: string | null; seqno: number }, []>(`PRAGMA index_info(${index.name})`)
        .all()
        .sort((a, b) => a.seqno - b.seqno)
        .map((c) => c.name ?? "(expression)");
      const source =
        sqlite.query<{ sql: string | null }, [string]>("SELECT sql FROM sqlite_master WHERE name = ?").get(index.name)
          ?.sql ?? "";
      const where = index.partial ? (source.split(/\bWHERE\b/i)[1] ?? "") : undefined;
      indexes.push({
        name: index.origin === "c" ? index.name : undefined,
        columns: keyColumns,
        unique: index.unique === 1,
        primary: false,
        predicate: where === undefined ? undefined : predicateColumns(where, columns.keys()),
      });
    }
    const foreignKeys = sqlite
      .query<{ table: string; from: string; to: string }, []>(`PRAGMA foreign_key_list(${name})`)
      .all()
      .map((fk) => `${fk.from} -> ${fk.table}.${fk.to}`);
    tables.set(name, { columns, indexes, foreignKeys });
  }
  sqlite.close();
  return tables;
}

async function readPostgres(client: SQL): Promise<Map<string, Table>> {
  const tables = new Map<string, Table>();
  const columns = await client`
    SELECT table_name, column_name, is_nullable, column_default, is_identity,
      CASE WHEN data_type = 'numeric' THEN format('numeric(%s, %s)', numeric_precision, numeric_scale)
        ELSE data_type END AS data_type
    FROM information_schema.columns
    WHERE table_schema = 'public' AND table_name <> 'relay402_migrations'
    ORDER BY table_name, ordinal_position`;
  for (const c of columns) {
    const table = tables.get(c.table_name) ?? { columns: new Map(), indexes: [], foreignKeys: [] };
    table.columns.set(c.column_name, {
      type: c.data_type,
      notNull: c.is_nullable === "NO",
      // An identity is SQLite's AUTOINCREMENT, not a default.
      hasDefault: c.column_default !== null && c.is_identity !== "YES",
    });
    tables.set(c.table_name, table);
  }
  const indexes = await client`
    SELECT t.relname AS table_name, i.relname AS index_name, ix.indisunique AS is_unique,
      ix.indisprimary AS is_primary, pg_get_expr(ix.indpred, ix.indrelid) AS predicate,
      array_to_string(ARRAY(
        SELECT coalesce(a.attname, '(expression)') FROM unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord)
        LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.ord), ',') AS key_columns
    FROM pg_index ix
    JOIN pg_class i ON i.oid = ix.indexrelid
    JOIN pg_class t ON t.oid = ix.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = 'public' AND t.relname <> 'relay402_migrations'`;
  for (const index of indexes) {
    const table = tables.get(index.table_name);
    if (!table) throw new Error(`index ${index.index_name} on unknown table ${index.table_name}`);
    table.indexes.push({
      name: index.index_name,
      columns: index.key_columns.split(","),
      unique: index.is_unique,
      primary: index.is_primary,
      predicate: index.predicate === null ? undefined : predicateColumns(index.predicate, table.columns.keys()),
    });
  }
  const foreignKeys = await client`
    SELECT c.conrelid::regclass::text AS table_name, c.confrelid::regclass::text AS referenced,
      a.attname AS from_column, r.attname AS to_column
    FROM pg_constraint c
    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
    JOIN pg_attribute r ON r.attrelid = c.confrelid AND r.attnum = c.confkey[1]
    WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace`;
  for (const fk of foreignKeys) {
    tables.get(fk.table_name)?.foreignKeys.push(`${fk.from_column} -> ${fk.referenced}.${fk.to_column}`);
  }
  return tables;
}

/** SQLite columns drizzle reads as booleans (`integer(..., { mode: "boolean" })`), per table. */
function sqliteBooleans(): Map<string, Set<string>> {
  const booleans = new Map<string, Set<string>>();
  for (const value of Object.values(sqliteSchema)) {
    if (!is(value, SQLiteTable)) continue;
    const config = sqliteTableConfig(value);
    booleans.set(
      config.name,
      new Set(config.columns.filter((c) => c.columnType === "SQLiteBoolean").map((c) => c.name)),
    );
  }
  return booleans;
}

/**
 * The PostgreSQL types that hold what a SQLite column holds: its INTEGER is 64-bit (so `bigint`, never
 * `integer`), read as a boolean by drizzle when the schema says so; TEXT is `text`, or `numeric(78, 0)` for a
 * decimal amount (any uint256, read back as the same decimal string).
 */
function compatible(sqliteType: string, isBoolean: boolean): string[] {
  if (sqliteType === "integer") return isBoolean ? ["boolean"] : ["bigint"];
  if (sqliteType === "text") return ["text", "numeric(78, 0)"];
  return [];
}

const keyOf = (index: Index) =>
  `${index.primary ? "primary" : index.unique ? "unique" : "index"}(${index.columns.join(",")})${
    index.predicate ? ` where ${index.predicate.join(",")}` : ""
  }`;

let url: string;
let db: PgDb;
let sqliteTables: Map<string, Table>;
let pgTables: Map<string, Table>;

beforeAll(async () => {
  url = await createTestDatabase("schema");
  db = await openPostgres(url, { max: 2 });
  sqliteTables = readSqlite();
  pgTables = await readPostgres(db.$client);
});

afterAll(async () => {
  await db?.$client.close();
});

describe("PostgreSQL schema", () => {
  test("has exactly the SQLite file's tables", () => {
    expect(sqliteTables.size).toBeGreaterThan(0);
    expect([...pgTables.keys()].sort()).toEqual([...sqliteTables.keys()].sort());
  });

  test("every column of every table, with a compatible type, the same nullability and the same defaults", () => {
    const booleans = sqliteBooleans();
    const problems: string[] = [];
    for (const [name, sqlite] of sqliteTables) {
      const pg = pgTables.get(name);
      if (!pg) continue; // reported by the table test
      for (const [column, want] of sqlite.columns) {
        const got = pg.columns.get(column);
        const allowed = compatible(want.type, booleans.get(name)?.has(column) ?? false);
        if (!got) problems.push(`${name}.${column}: missing`);
        else if (!allowed.includes(got.type))
          problems.push(`${name}.${column}: ${got.type}, want ${allowed.join("|")}`);
        else if (got.notNull !== want.notNull) problems.push(`${name}.${column}: NOT NULL ${got.notNull}`);
        else if (got.hasDefault !== want.hasDefault) problems.push(`${name}.${column}: default ${got.hasDefault}`);
      }
      for (const column of pg.columns.keys()) {
        if (!sqlite.columns.has(column)) problems.push(`${name}.${column}: only in PostgreSQL`);
      }
    }
    expect(problems).toEqual([]);
  });

  test("the same primary keys, unique keys (partial ones with the same condition), indexes and foreign keys", () => {
    for (const [name, sqlite] of sqliteTables) {
      const pg = pgTables.get(name);
      expect(pg, name).toBeDefined();
      if (!pg) continue;
      expect({ name, keys: pg.indexes.map(keyOf).sort() }).toEqual({ name, keys: sqlite.indexes.map(keyOf).sort() });
      // Indexes created by name keep their name (statements and operators refer to them).
      const named = (indexes: Index[]) =>
        indexes
          .filter((index) => index.name && !index.primary)
          .map((index) => index.name)
          .sort();
      expect({ name, indexes: named(pg.indexes) }).toEqual({ name, indexes: named(sqlite.indexes) });
      expect({ name, fks: pg.foreignKeys.sort() }).toEqual({ name, fks: sqlite.foreignKeys.sort() });
    }
    // The comparison saw what matters here: unique keys that make settles idempotent, and the partial one.
    const all = [...sqliteTables.values()].flatMap((table) => table.indexes);
    expect(all.some((index) => index.unique && !index.primary && index.predicate?.length)).toBe(true);
    expect(all.filter((index) => index.unique && !index.primary).length).toBeGreaterThanOrEqual(4);
  });

  test("the drizzle pg-core schema is what its committed migrations create (regenerate them after a change)", () => {
    const problems: string[] = [];
    const tables = Object.values(pgSchema).filter((value) => is(value, PgTable));
    expect(tables.length).toBe(pgTables.size);
    for (const table of tables) {
      const config = pgTableConfig(table);
      const migrated = pgTables.get(config.name);
      if (!migrated) {
        problems.push(`${config.name}: not created by the migrations`);
        continue;
      }
      for (const column of config.columns) {
        const got = migrated.columns.get(column.name);
        if (!got) problems.push(`${config.name}.${column.name}: not created by the migrations`);
        else if (got.type !== column.getSQLType()) problems.push(`${config.name}.${column.name}: ${got.type}`);
        else if (got.notNull !== column.notNull)
          problems.push(`${config.name}.${column.name}: NOT NULL ${got.notNull}`);
      }
      if (config.columns.length !== migrated.columns.size) problems.push(`${config.name}: column count`);
    }
    expect(problems).toEqual([]);
  });
});

describe("PostgreSQL migrator", () => {
  test("applies each migration once: a second start, and two instances starting at once, apply nothing more", async () => {
    expect(await migratePostgres(db.$client)).toEqual([]);
    const fresh = await createTestDatabase("migrate");
    const clients = [new SQL(fresh, { max: 1 }), new SQL(fresh, { max: 1 }), new SQL(fresh, { max: 1 })];
    try {
      const applied = await Promise.all(clients.map((client) => migratePostgres(client)));
      // Exactly one of the three applied everything; the others waited on the lock and found it recorded.
      expect(applied.map((names) => names.length).sort()).toEqual([0, 0, applied.flat().length]);
      expect(applied.flat().length).toBeGreaterThan(0);
      const [client] = clients as [SQL];
      const recorded = await client`SELECT count(*)::int AS n FROM relay402_migrations`;
      expect(recorded[0].n).toBe(applied.flat().length);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });
});
