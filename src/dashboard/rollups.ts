import type { DashboardStore } from "./dashboard-store";
import { type Group, groupsOf } from "./figures";
import type { DashboardFlow } from "./records";

// The summary of a day or a month from hourly rollups: each hour's rows summed once (figures.ts's groups: counts,
// exact sums, a latency histogram) and stored in dashboard_rollups, so a 30-day summary reads ~720 hours' groups
// instead of every row of the month. What is not stored is read from the rows: the current hour, the part of the
// range's first hour, and any hour not stored yet.
//
// When an hour is stored: once it ended SEAL_AFTER_MS ago and none of its records is pending (records are created at
// the time of the insert, so no new row lands in a past hour; a row deleted is always a pending one). When it is
// built again: when one of its records changed, as every write of a record sets its updated_at (the index
// *_updated); changes are looked for since the last refresh, less CHANGE_MARGIN_MS for the instances' clocks.

export const HOUR_MS = 3_600_000;
/** An hour is stored this long after it ended (its last records' transactions are then usually concluded). */
export const SEAL_AFTER_MS = 10 * 60_000;
/** Changes are looked for this much before the last refresh: clocks of several instances differ a little. */
export const CHANGE_MARGIN_MS = 10 * 60_000;
/** Hours built from one read of the rows (a day's rows at most in memory). */
const BUILD_HOURS_AT_ONCE = 24;
/** Hours the rollups cover back from now: the longest range, and one more hour. */
export const ROLLUP_HORIZON_MS = 30 * 86_400_000 + HOUR_MS;

const iso = (ms: number) => new Date(ms).toISOString();
const floorHour = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;

/**
 * Brings the stored hours up to date at `now`: forgets the hours whose records changed since the last refresh,
 * then builds every ended hour of the horizon not stored. Safe on several instances at once (each hour is built
 * from the rows in one transaction; a second build of the same hour adds nothing).
 */
export async function refreshRollups(
  store: DashboardStore,
  now: number,
): Promise<{ built: number; forgotten: number }> {
  const mark = await store.rollupMark();
  let forgotten = 0;
  if (mark !== null) {
    const changed = await store.changedHours(iso(Date.parse(mark) - CHANGE_MARGIN_MS));
    forgotten = changed.length;
    if (changed.length > 0) await store.forgetHours(changed);
  }
  // Set before building: a change made from now on is found by the next refresh.
  await store.setRollupMark(iso(now));
  const first = floorHour(now - ROLLUP_HORIZON_MS);
  const sealed = floorHour(now - SEAL_AFTER_MS);
  const stored = await store.storedHours(iso(first), iso(sealed));
  let built = 0;
  // Hours not stored, read a day's rows at a time and stored together.
  let missing: number[] = [];
  const flush = async () => {
    if (missing.length === 0) return;
    const [start, end] = [missing[0] as number, (missing.at(-1) as number) + HOUR_MS];
    const rows = await store.rows({ since: iso(start), before: iso(end) });
    const byHour = new Map<string, Group[]>(missing.map((hour) => [iso(hour), []]));
    const unsettled = new Set(
      rows.filter((row) => row.status === "pending").map((row) => iso(floorHour(Date.parse(row.createdAt)))),
    );
    for (const group of groupsOf(rows, HOUR_MS)) byHour.get(group.bucket)?.push(group);
    const hours = [...byHour].filter(([hour]) => !unsettled.has(hour)).map(([hour, groups]) => ({ hour, groups }));
    await store.storeHours(hours, iso(now));
    built += hours.length;
    missing = [];
  };
  for (let hour = first; hour < sealed; hour += HOUR_MS) {
    if (stored.has(iso(hour))) await flush();
    else {
      missing.push(hour);
      if (missing.length === BUILD_HOURS_AT_ONCE) await flush();
    }
  }
  await flush();
  return { built, forgotten };
}

/**
 * The groups of [from, to) with buckets of an hour: stored hours from the rollups, the rest from the rows.
 * `filter` narrows both alike.
 */
export async function rangeGroups(
  store: DashboardStore,
  from: number,
  to: number,
  filter: { network?: string; flow?: DashboardFlow; sources?: readonly Group["source"][] } = {},
): Promise<Group[]> {
  const firstWhole = Math.ceil(from / HOUR_MS) * HOUR_MS;
  const lastWhole = floorHour(to);
  const [stored, groups] =
    firstWhole < lastWhole
      ? await Promise.all([
          store.storedHours(iso(firstWhole), iso(lastWhole)),
          store.rollups(iso(firstWhole), iso(lastWhole), filter),
        ])
      : [new Set<string>(), []];
  // The spans read from the rows: before the first whole hour, each run of hours not stored, and the current hour.
  const spans: [number, number][] = [];
  let start = from;
  for (let hour = firstWhole; hour < lastWhole; hour += HOUR_MS) {
    if (!stored.has(iso(hour))) continue;
    if (start < hour) spans.push([start, hour]);
    start = hour + HOUR_MS;
  }
  spans.push([start, to]);
  const rows = await Promise.all(
    spans.map(([since, before]) => store.rows({ ...filter, since: iso(since), before: iso(before) })),
  );
  return [...groups, ...groupsOf(rows.flat(), HOUR_MS)];
}
