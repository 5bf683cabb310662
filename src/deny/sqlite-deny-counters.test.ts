import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../db/open";
import { createSqliteDenyCounters } from "./sqlite-deny-counters";

const db = openDatabase(join(mkdtempSync(join(tmpdir(), "relay402-deny-")), "relay402.sqlite"));
afterAll(() => db.$client.close());

const DAY = 86_400;
let clock = 1_800_000_000;
const counters = createSqliteDenyCounters(db, { afterReverts: 3, windowSeconds: DAY, now: () => clock });
const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

describe("SQLite deny counters", () => {
  test("a subject is refused from its third revert on, per network and kind, any address case", () => {
    const payer = "0x00000000000000000000000000000000000000aB";
    counters.recordRevert("bsc", "payer", payer, "settlement reverted");
    counters.recordRevert("bsc", "payer", payer.toLowerCase(), "settlement reverted");
    expect(counters.isDenied("bsc", "payer", payer)).toBe(false);
    counters.recordRevert("bsc", "payer", payer, "settlement reverted");
    expect(counters.isDenied("bsc", "payer", payer)).toBe(true);
    expect(counters.isDenied("bsc", "payer", payer.toUpperCase().replace("0X", "0x"))).toBe(true);
    expect(counters.isDenied("base", "payer", payer)).toBe(false);
    expect(counters.isDenied("bsc", "owner", payer)).toBe(false);
  });

  test("the refusal ends a window after the last revert", () => {
    const owner = address(2);
    for (let i = 0; i < 3; i++) counters.recordRevert("base", "owner", owner, "user operation reverted");
    expect(counters.isDenied("base", "owner", owner)).toBe(true);
    clock += DAY - 1;
    expect(counters.isDenied("base", "owner", owner)).toBe(true);
    clock += 1;
    expect(counters.isDenied("base", "owner", owner)).toBe(false);
  });

  test("a revert after a quiet window starts the count again", () => {
    const payer = address(3);
    counters.recordRevert("bsc", "payer", payer, "a");
    counters.recordRevert("bsc", "payer", payer, "b");
    clock += DAY;
    counters.recordRevert("bsc", "payer", payer, "c");
    counters.recordRevert("bsc", "payer", payer, "d");
    expect(counters.isDenied("bsc", "payer", payer)).toBe(false);
    counters.recordRevert("bsc", "payer", payer, "e");
    expect(counters.isDenied("bsc", "payer", payer)).toBe(true);
  });

  test("counts are kept in the database: a second store on the same file sees them", () => {
    const payer = address(4);
    for (let i = 0; i < 3; i++) counters.recordRevert("bsc", "payer", payer, "settlement reverted");
    const other = createSqliteDenyCounters(db, { afterReverts: 3, windowSeconds: DAY, now: () => clock });
    expect(other.isDenied("bsc", "payer", payer)).toBe(true);
    const stricter = createSqliteDenyCounters(db, { afterReverts: 4, windowSeconds: DAY, now: () => clock });
    expect(stricter.isDenied("bsc", "payer", payer)).toBe(false);
  });
});
