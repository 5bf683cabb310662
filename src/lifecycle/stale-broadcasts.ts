import type { Config } from "../config/schema";
import { type Logger, shortReason } from "../logger";
import type { RecordFilter, UnfinishedRecord } from "./orphans";

/** A record whose transaction was broadcast and has no outcome yet: a settlement's, or a funded approve's steps. */
const BROADCAST = new Set(["sent", "funding_sent", "approve_sent"]);

/** How often an instance looks for them: about its shortest receipt wait, within 1 to 30 seconds. */
const intervalOf = (config: Config) =>
  Math.max(
    1_000,
    Math.min(30_000, ...Object.values(config.networks).map((network) => network?.receiptTimeoutMs ?? 30_000)),
  );

/**
 * The broadcast records nobody has written for twice their network's receipt wait: the settle that sent one has
 * answered pending (202, x402's settlement_pending) by then, and only a retry of its client, or the next start,
 * would look at it again. `owns` narrows them to this instance's (several instances: the keys it leases).
 */
export function staleBroadcasts(
  config: Config,
  owns: (record: UnfinishedRecord) => Promise<boolean> = async () => true,
  now: () => number = Date.now,
): RecordFilter {
  return async (record) => {
    if (!BROADCAST.has(record.status)) return false;
    const wait = config.networks[record.network as keyof Config["networks"]]?.receiptTimeoutMs ?? 30_000;
    return now() - Date.parse(record.updatedAt) > 2 * wait && (await owns(record));
  };
}

/**
 * Resumes, in the background, what a settle left broadcast and unconcluded, so that its outcome is recorded once the
 * chain has it: the lookup answers it and its webhook event (payment.settled, payment.failed, onboarding.approved)
 * goes out without waiting for the client's next settle. One pass at a time.
 */
export function startStaleBroadcastResumer(deps: {
  config: Config;
  logger: Logger;
  reconcile: (which: RecordFilter) => Promise<void>;
  owns?: (record: UnfinishedRecord) => Promise<boolean>;
}) {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = deps
      .reconcile(staleBroadcasts(deps.config, deps.owns))
      .catch((error) => deps.logger.warn({ event: "stale_broadcasts_resume_failed", reason: shortReason(error) }))
      .finally(() => {
        running = undefined;
      });
  }, intervalOf(deps.config));
  return {
    /** No new pass starts; one running only re-broadcasts and reads, and ends with the executors' receipt waits. */
    stop: () => clearInterval(timer),
  };
}
