/** Fixed one-minute window per client key; old windows are swept as they expire. */
export function createRateLimiter(limitPerMinute: number, now: () => number = Date.now) {
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = now();
  return {
    /** Returns 0 when allowed, else the seconds to wait. */
    take(key: string): number {
      const time = now();
      if (time - lastSweep > 60_000) {
        for (const [k, w] of windows) if (time - w.start >= 60_000) windows.delete(k);
        lastSweep = time;
      }
      const window = windows.get(key);
      if (!window || time - window.start >= 60_000) {
        windows.set(key, { start: time, count: 1 });
        return 0;
      }
      window.count += 1;
      if (window.count <= limitPerMinute) return 0;
      return Math.max(1, Math.ceil((window.start + 60_000 - time) / 1000));
    },
  };
}
