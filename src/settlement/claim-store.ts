import { and, eq, getTableColumns, sql } from "drizzle-orm";
import type { Db } from "../db/open";
import type { eoaSettlements, swapSettlements, x402Settlements } from "../db/schema";
import { claimRecord, createSettlementJournal, JOURNAL_COLUMNS, type SettlementStoreOf } from "./settlement-journal";

type SettlementTable = typeof eoaSettlements | typeof x402Settlements | typeof swapSettlements;

/** The journal's own columns, written by the journal (src/settlement/settlement-journal.ts), never by a claim. */
const JOURNAL = new Set<string>(JOURNAL_COLUMNS);

const p = (name: string) => sql.placeholder(name);

/**
 * The SQLite store of one settlement kind: a record per key, claimed by one insert (the key's unique index decides
 * between concurrent claims), then the shared journal. The columns a claim writes are the table's own, less the
 * journal's and `defaulted` ones, so a kind declares them once, in its table. Every statement is prepared once
 * (building SQL on every call was most of a settle's CPU), and each state change is one statement.
 */
export function createClaimStore<Row, New, Key extends Record<string, unknown>>(
  db: Db,
  table: SettlementTable,
  shape: {
    /** The key's columns: its unique index. */
    key: readonly (keyof Key & string)[];
    /** The key, normalised as it is stored (hex lower-cased). */
    keyOf(key: Key): Key;
    /** A new record's column values (default: the record itself, its key normalised). */
    valuesOf?(record: New): Record<string, unknown>;
    /** Columns a claim leaves to their default. */
    defaulted?: readonly string[];
  },
): SettlementStoreOf<Row, New, Key> {
  const t = table as typeof eoaSettlements;
  const columns = Object.keys(getTableColumns(table)).filter(
    (name) => !JOURNAL.has(name) && !shape.defaulted?.includes(name),
  );
  const now = () => new Date().toISOString();
  const byName = t as unknown as Record<string, Parameters<typeof eq>[0]>;
  const findByKey = db
    .select()
    .from(t)
    .where(and(...shape.key.map((name) => eq(byName[name] as Parameters<typeof eq>[0], p(name)))))
    .prepare();
  const insertPending = db
    .insert(t)
    .values({
      ...Object.fromEntries(columns.map((name) => [name, p(name)])),
      status: "pending",
      createdAt: p("time"),
      updatedAt: p("time"),
    } as never)
    .onConflictDoNothing()
    .returning()
    .prepare();
  const find = (key: Key) => findByKey.get(shape.keyOf(key)) as Row | undefined;
  const valuesOf = shape.valuesOf ?? ((record: New) => ({ ...record, ...shape.keyOf(record as unknown as Key) }));
  return {
    find,
    claim: (record) =>
      claimRecord(
        db,
        () => insertPending.get({ ...valuesOf(record), time: now() }) as Row | undefined,
        () => find(record as unknown as Key),
      ),
    ...createSettlementJournal<Row>(db, table),
  };
}
