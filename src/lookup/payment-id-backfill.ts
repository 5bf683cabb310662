import type { FlowContext } from "../flow";
import type { LookupStore } from "./lookup-store";
import { FILL_PAGE, ID_SOURCES, idNetworks, paymentIdOfRow } from "./payment-ids";

/** Pages of one journal filled at one start (500 rows each): a larger backlog is left to the next start, and logged. */
export const BACKFILL_PAGES = 200;

/**
 * Gives the journal rows written before the claim wrote their payment id theirs (payment_id NULL), once at start,
 * page by page. Every row claimed since has its id from its claim, so the NULL rows only ever decrease: nothing
 * runs on a timer or before a lookup. A row of a network no longer configured (or with no relayer now) keeps none
 * and is found by its transaction. Several instances starting at once write the same id to the same row.
 */
export async function backfillPaymentIds(
  context: Pick<FlowContext, "config" | "logger">,
  store: LookupStore,
  stopping: () => boolean,
): Promise<void> {
  for (const source of ID_SOURCES) {
    const networks = idNetworks(context.config, source);
    let filled = 0;
    let left = true;
    for (let page = 0; page < BACKFILL_PAGES && left && !stopping(); page++) {
      const rows = await store.unfilled(source, networks);
      if (rows.length > 0)
        await store.fill(
          source.table,
          rows.map((row) => ({ id: row.id, paymentId: paymentIdOfRow(context.config, source, row) })),
        );
      filled += rows.length;
      left = rows.length === FILL_PAGE;
    }
    if (left)
      context.logger.warn({
        event: "payment_ids_backfill_partial",
        table: source.table,
        rows: filled,
        rest: "next start",
      });
    else if (filled > 0) context.logger.info({ event: "payment_ids_backfilled", table: source.table, rows: filled });
  }
}
