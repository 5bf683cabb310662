import type { Networks } from "../chain/networks";
import { ApiError } from "../errors";
import { type Logger, shortReason } from "../logger";
import type { PaymentSettler } from "./settle-payment";
import type { SettlementStore } from "./settlement-store";

/**
 * After a restart, finishes the records left pending or sent by the previous process, through the same
 * settler (and the same durable sender) as /settle: what the chain says is what gets recorded.
 */
export async function reconcileSettlements(deps: {
  store: SettlementStore;
  networks: Networks;
  settler: PaymentSettler;
  logger: Logger;
}): Promise<void> {
  for (const record of deps.store.unfinished()) {
    if (!deps.networks.enabled.includes(record.network as never)) continue;
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
