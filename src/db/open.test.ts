import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, writeLazily } from "./open";

const dir = mkdtempSync(join(tmpdir(), "relay402-open-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const synchronous = (db: ReturnType<typeof openDatabase>) =>
  (db.$client.query("PRAGMA synchronous").get() as { synchronous: number }).synchronous;

test("commits are synced (FULL) unless a write opts out, and only that write", () => {
  const db = openDatabase(join(dir, "sync.sqlite"));
  expect(synchronous(db)).toBe(2);
  let during: number | undefined;
  const result = writeLazily(db, () => {
    during = synchronous(db);
    return "done";
  });
  expect(result).toBe("done");
  expect(during).toBe(1);
  expect(synchronous(db)).toBe(2);
  expect(() =>
    writeLazily(db, () => {
      throw new Error("constraint");
    }),
  ).toThrow("constraint");
  expect(synchronous(db)).toBe(2);
  db.$client.close();
});
