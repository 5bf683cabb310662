import type { Networks } from "../chain/networks";
import type { RecordFilter } from "../lifecycle/orphans";
import type { Logger } from "../logger";
import { reconcileUnfinished } from "../settlement/reconcile-unfinished";
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
  await reconcileUnfinished({
    ...deps,
    records: await deps.settler.unfinished(),
    event: "settlement_reconciled",
    resolve: (network, record) => deps.settler.reconcile(network, record),
  });
}
