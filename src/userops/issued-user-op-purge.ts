import { type Logger, shortReason } from "../logger";
import type { AsyncIssuedUserOpStore } from "./issued-user-op-store";

export const PURGE_INTERVAL_MS = 60_000;
/** An expired UserOp keeps answering "expired, call verify again" this long before it is forgotten. */
export const PURGE_GRACE_SECONDS = 3_600;
/** Rows deleted per statement; the event loop gets a turn between statements. */
export const PURGE_BATCH = 1_000;
/** Rows deleted per run at most; the next run takes the rest. */
export const PURGE_MAX_PER_RUN = 100_000;

/**
 * Issued UserOps nobody settled are never read again once expired: without this, every /wallet/verify would leave
 * a row behind for ever. Runs every minute until `stop()`; `run()` is the same work, on demand.
 */
export function startIssuedUserOpPurge(deps: { store: AsyncIssuedUserOpStore; logger: Logger; now: () => number }) {
  let running: Promise<number> | undefined;
  let stopped = false;

  async function purge(): Promise<number> {
    const before = deps.now() - PURGE_GRACE_SECONDS;
    let purged = 0;
    while (!stopped && purged < PURGE_MAX_PER_RUN) {
      const deleted = await deps.store.purgeExpired(before, Math.min(PURGE_BATCH, PURGE_MAX_PER_RUN - purged));
      purged += deleted;
      if (deleted < PURGE_BATCH) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (purged > 0) deps.logger.info({ event: "issued_user_ops_purged", count: purged });
    return purged;
  }

  const run = () => {
    running ??= purge().finally(() => {
      running = undefined;
    });
    return running;
  };

  const timer = setInterval(() => {
    run().catch((error) => deps.logger.warn({ event: "issued_user_ops_purge_failed", reason: shortReason(error) }));
  }, PURGE_INTERVAL_MS);
  timer.unref?.();

  return {
    run,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
