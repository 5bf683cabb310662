// The behaviour of the deny counters (src/deny), written once and run on each database:
// test/deny/deny-counters-sqlite.test.ts and deny-counters-postgres.test.ts. Every "instance" is a connection
// (pool) of its own on one real database, with a clock of its own; nothing of the store is mocked.
import { afterAll, expect, test } from "bun:test";
import type { DenyCounters, DenyPolicy } from "../../src/deny/deny-counters";

export type DenyDatabase = {
  /** A new connection (pool) to the shared database, one instance's: counters with this policy on it. */
  connect(policy: DenyPolicy): Promise<{ counters: DenyCounters; close(): Promise<void> }>;
};

const DAY = 86_400;
/** The swap-only kinds' limits: not the all-flows ones, so that a kind judged by the other's limits shows. */
const SWAPS = { afterReverts: 2, windowSeconds: 3_600 };
let subjects = 0;
/** An address of its own per use, so tests on one database never see each other's rows. */
const freshAddress = () => `0x${(++subjects).toString(16).padStart(40, "0")}`;

export function denyCountersSuite(database: DenyDatabase) {
  const opened: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const connection of opened.splice(0)) await connection.close();
  });
  let clock = 1_800_000_000;
  /** One instance's counters; all share `clock` unless given one. */
  const instance = async (afterReverts = 3, now: () => number = () => clock) => {
    const connection = await database.connect({ afterReverts, windowSeconds: DAY, swaps: SWAPS, now });
    opened.push(connection);
    return connection.counters;
  };

  test("a subject is refused from its third revert on, per network and kind, any address case", async () => {
    const counters = await instance();
    const payer = `${freshAddress().slice(0, -2)}aB`;
    await counters.recordRevert("bsc", "payer", payer, "settlement reverted");
    await counters.recordRevert("bsc", "payer", payer.toLowerCase(), "settlement reverted");
    expect(await counters.isDenied("bsc", "payer", payer)).toBe(false);
    await counters.recordRevert("bsc", "payer", payer, "settlement reverted");
    expect(await counters.isDenied("bsc", "payer", payer)).toBe(true);
    expect(await counters.isDenied("bsc", "payer", payer.toUpperCase().replace("0X", "0x"))).toBe(true);
    expect(await counters.isDenied("base", "payer", payer)).toBe(false);
    expect(await counters.isDenied("bsc", "owner", payer)).toBe(false);
  });

  test("the refusal ends a window after the last revert", async () => {
    const counters = await instance();
    const owner = freshAddress();
    for (let i = 0; i < 3; i++) await counters.recordRevert("base", "owner", owner, "user operation reverted");
    expect(await counters.isDenied("base", "owner", owner)).toBe(true);
    clock += DAY - 1;
    expect(await counters.isDenied("base", "owner", owner)).toBe(true);
    clock += 1;
    expect(await counters.isDenied("base", "owner", owner)).toBe(false);
  });

  test("a revert after a quiet window starts the count again", async () => {
    const counters = await instance();
    const payer = freshAddress();
    await counters.recordRevert("bsc", "payer", payer, "a");
    await counters.recordRevert("bsc", "payer", payer, "b");
    clock += DAY;
    await counters.recordRevert("bsc", "payer", payer, "c");
    await counters.recordRevert("bsc", "payer", payer, "d");
    expect(await counters.isDenied("bsc", "payer", payer)).toBe(false);
    await counters.recordRevert("bsc", "payer", payer, "e");
    expect(await counters.isDenied("bsc", "payer", payer)).toBe(true);
  });

  test("counts are kept in the database: another instance sees them, judged by its own threshold", async () => {
    const counters = await instance();
    const payer = freshAddress();
    for (let i = 0; i < 3; i++) await counters.recordRevert("bsc", "payer", payer, "settlement reverted");
    expect(await (await instance(3)).isDenied("bsc", "payer", payer)).toBe(true);
    expect(await (await instance(4)).isDenied("bsc", "payer", payer)).toBe(false);
  });

  test("an instance whose clock is behind never moves the last revert back (the window runs from the latest)", async () => {
    const ahead = await instance();
    const behind = await instance(3, () => clock - 3_600);
    const payer = freshAddress();
    await ahead.recordRevert("bsc", "payer", payer, "a");
    await ahead.recordRevert("bsc", "payer", payer, "b");
    await behind.recordRevert("bsc", "payer", payer, "c");
    expect(await ahead.isDenied("bsc", "payer", payer)).toBe(true);
    // An hour before the window from the latest revert ends: the behind clock's revert did not shorten it.
    clock += DAY - 3_600;
    expect(await ahead.isDenied("bsc", "payer", payer)).toBe(true);
    clock += 3_600;
    expect(await ahead.isDenied("bsc", "payer", payer)).toBe(false);
  });

  test("the swap-only kinds count apart, under their own threshold and window (a window after the last revert)", async () => {
    const counters = await instance();
    const payer = freshAddress();
    await counters.recordRevert("bsc", "swap_payer", payer, "swap reverted: price moved");
    expect(await counters.isDenied("bsc", "swap_payer", payer)).toBe(false);
    await counters.recordRevert("bsc", "swap_payer", payer, "swap reverted: price moved");
    expect(await counters.isDenied("bsc", "swap_payer", payer)).toBe(true);
    // The all-flows count of the same address is untouched, and the owner's swap count is another row.
    expect(await counters.isDenied("bsc", "payer", payer)).toBe(false);
    await counters.recordRevert("bsc", "payer", payer, "settlement reverted");
    await counters.recordRevert("bsc", "payer", payer, "settlement reverted");
    expect(await counters.isDenied("bsc", "payer", payer)).toBe(false);
    expect(await counters.isDenied("bsc", "swap_owner", payer)).toBe(false);
    clock += SWAPS.windowSeconds - 1;
    expect(await counters.isDenied("bsc", "swap_payer", payer)).toBe(true);
    clock += 1;
    expect(await counters.isDenied("bsc", "swap_payer", payer)).toBe(false);
    // A revert a swap window after the last starts the swap count again, though a day has not passed.
    await counters.recordRevert("bsc", "swap_payer", payer, "swap reverted: price moved");
    expect(await counters.isDenied("bsc", "swap_payer", payer)).toBe(false);
    const owner = freshAddress();
    await counters.recordRevert("base", "swap_owner", owner, "swap reverted: price moved");
    await counters.recordRevert("base", "swap_owner", owner, "swap reverted: price moved");
    expect(await counters.isDenied("base", "swap_owner", owner)).toBe(true);
    expect(await counters.isDenied("base", "owner", owner)).toBe(false);
  });

  test("concurrent reverts of one subject from two instances each count once", async () => {
    const PER_INSTANCE = 60;
    const [one, two] = [await instance(), await instance()];
    const payer = freshAddress();
    await Promise.all(
      [one, two].flatMap((counters) =>
        Array.from({ length: PER_INSTANCE }, (_, i) => counters.recordRevert("bsc", "payer", payer, `revert ${i}`)),
      ),
    );
    // The exact count, read through the thresholds: refused at 2 × 60, not at one more.
    expect(await (await instance(2 * PER_INSTANCE)).isDenied("bsc", "payer", payer)).toBe(true);
    expect(await (await instance(2 * PER_INSTANCE + 1)).isDenied("bsc", "payer", payer)).toBe(false);
  });
}
