import type { NetworkRuntime } from "../chain/networks";
import { ApiError } from "../errors";
import { everyRecord, inNonceOrder, type RecordFilter, type UnfinishedRecord } from "../lifecycle/orphans";
import { type Logger, shortReason } from "../logger";

/**
 * After a restart (or, with several instances, another instance's orphans): finishes each unfinished settlement
 * of one kind through its flow's own settler, in the nonce order its transactions were signed in, so that a
 * resumed record never waits on a lower nonce still unresolved behind it. Only records on an enabled network, and
 * that `which` lets through, are taken. `resolve` answers null when the record was released (never signed, its
 * nonce unused: the authorization may be settled again), else what the flow's answer is.
 */
export async function reconcileUnfinished<R extends UnfinishedRecord & { id: number }>(deps: {
  records: readonly R[];
  networks: { enabled: readonly string[]; get(name: string): NetworkRuntime };
  which?: RecordFilter;
  logger: Logger;
  /** The log event of each record's outcome (`settlement_reconciled`, `x402_settlement_reconciled`, …). */
  event: string;
  resolve(network: NetworkRuntime, record: R): Promise<unknown>;
}): Promise<void> {
  const which = deps.which ?? everyRecord;
  for (const record of inNonceOrder(deps.records)) {
    if (!deps.networks.enabled.includes(record.network) || !(await which(record))) continue;
    const network = deps.networks.get(record.network);
    try {
      const resolved = await deps.resolve(network, record);
      deps.logger.info({ event: deps.event, id: record.id, status: resolved === null ? "released" : "resolved" });
    } catch (error) {
      // An ApiError is an outcome the settler has recorded (reverted, rejected, still pending).
      const outcome = error instanceof ApiError ? error.code : "unresolved";
      deps.logger.warn({ event: deps.event, id: record.id, outcome, reason: shortReason(error) });
    }
  }
}
