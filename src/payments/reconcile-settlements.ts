import type { Networks } from "../chain/networks";
import { ApiError } from "../errors";
import { everyRecord, inNonceOrder, type RecordFilter } from "../lifecycle/orphans";
import { type Logger, shortReason } from "../logger";
import type { PaymentSettler } from "../settlement/settle-payment";

/**
 * After a restart, finishes the records left pending or sent by the previous process, through the same
 * settler (and the same durable sender) as /settle: what the chain says is what gets recorded. The records are the
 * settler's own store's (SQLite or PostgreSQL), so none is reconciled through a settler of another database.
 */
export async function reconcileSettlements(deps: {
  networks: Networks;
  settler: PaymentSettler;
  logger: Logger;
  /** Which records to take (several instances: only other instances' orphans, src/lifecycle/orphans.ts). */
  which?: RecordFilter;
}): Promise<void> {
  const which = deps.which ?? everyRecord;
  for (const record of inNonceOrder(await deps.settler.unfinished())) {
    if (!deps.networks.enabled.includes(record.network as never) || !(await which(record))) continue;
    const network = deps.networks.get(record.network);
    try {
      const settled = await deps.settler.reconcile(network, record);
      deps.logger.info({ event: "settlement_reconciled", id: record.id, status: settled ? "success" : "released" });
    } catch (error) {
      // An ApiError is an outcome the settler has recorded (reverted, rejected, still pending).
      const outcome = error instanceof ApiError ? error.code : "unresolved";
      deps.logger.warn({ event: "settlement_reconciled", id: record.id, outcome, reason: shortReason(error) });
    }
  }
}
