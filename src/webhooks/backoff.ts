/**
 * When a delivery that just failed is tried again: the schedule's wait for this attempt (its last wait repeats),
 * or never (undefined: dead-lettered) when that falls past the retry limit counted from the delivery's creation.
 */
export function nextAttemptAt(
  failedAttempts: number,
  createdAtMs: number,
  nowMs: number,
  scheduleMs: readonly number[],
  retryLimitMs: number,
): number | undefined {
  const wait = scheduleMs[Math.min(failedAttempts, scheduleMs.length) - 1] ?? scheduleMs.at(-1) ?? 0;
  const next = nowMs + wait;
  return next > createdAtMs + retryLimitMs ? undefined : next;
}
