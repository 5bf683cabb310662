import { describe, expect, test } from "bun:test";
import { WEBHOOK_DEFAULTS } from "../config/webhooks";
import { nextAttemptAt } from "./backoff";

const schedule = WEBHOOK_DEFAULTS.retryScheduleSeconds.map((s) => s * 1000);
const limit = WEBHOOK_DEFAULTS.retryLimitSeconds * 1000;

describe("nextAttemptAt", () => {
  test("waits 5 s, 30 s, 2 min, 10 min, 1 h, then every 6 h", () => {
    const waits = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => (nextAttemptAt(n, 0, 1_000, schedule, limit) ?? 0) - 1_000);
    expect(waits).toEqual([5_000, 30_000, 120_000, 600_000, 3_600_000, 21_600_000, 21_600_000, 21_600_000]);
  });

  test("dead-letters the attempt that would fall past 3 days after the delivery was created", () => {
    const created = 1_000_000;
    const lastInside = created + limit - 21_600_000;
    expect(nextAttemptAt(20, created, lastInside, schedule, limit)).toBe(created + limit);
    expect(nextAttemptAt(20, created, lastInside + 1, schedule, limit)).toBeUndefined();
  });

  test("counts the attempts of the whole window: the default schedule makes about 17 attempts", () => {
    let now = 0;
    let attempts = 1;
    for (;;) {
      const next = nextAttemptAt(attempts, 0, now, schedule, limit);
      if (next === undefined) break;
      now = next;
      attempts += 1;
    }
    // 5 s + 30 s + 2 min + 10 min + 1 h, then 6 h waits until 72 h: 1 + 5 + 11 attempts.
    expect(attempts).toBe(17);
  });
});
