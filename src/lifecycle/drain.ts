/**
 * Graceful shutdown's bookkeeping: while draining, new work (a settle, a claim) is refused and the work already
 * started is counted until it ends. Anything still running when the shutdown's timeout ends is not lost: every flow
 * writes its record before it sends, and the next start's reconciliation resumes it from that record.
 */
export type Drain = {
  readonly draining: boolean;
  /** Work started and not ended yet (settles in flight, start-up reconciliation). */
  readonly active: number;
  /** Counts one piece of work; the returned function ends it (calling it again does nothing). */
  begin(): () => void;
  /** Counts a promise as work until it settles. */
  track<T>(work: Promise<T>): Promise<T>;
  /** From now on `draining` is true. */
  start(): void;
  /** Resolves true once no work is active, false when `timeoutMs` passed first. */
  idle(timeoutMs: number): Promise<boolean>;
};

/** How long a client refused while draining is told to wait (`Retry-After`, seconds). */
export const DRAIN_RETRY_AFTER_SECONDS = 5;

export function createDrain(): Drain {
  let draining = false;
  let active = 0;
  const waiters = new Set<() => void>();
  const settled = () => {
    if (active > 0) return;
    for (const wake of [...waiters]) wake();
  };
  const begin = () => {
    active += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      active -= 1;
      settled();
    };
  };
  return {
    get draining() {
      return draining;
    },
    get active() {
      return active;
    },
    begin,
    track(work) {
      const end = begin();
      return work.finally(end);
    },
    start() {
      draining = true;
    },
    idle(timeoutMs) {
      if (active === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const done = (finished: boolean) => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(finished);
        };
        const wake = () => done(true);
        const timer = setTimeout(() => done(false), timeoutMs);
        waiters.add(wake);
      });
    },
  };
}
