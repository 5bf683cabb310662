/**
 * What a mined transaction of ours cost, from its receipt, and when the service saw it mined; stored with the record
 * it concludes, in the same write. Amounts are decimal strings: exact at any size (TEXT on SQLite, NUMERIC(78,0) on
 * PostgreSQL), where a JS number would round a wei price. Times are ISO strings of the service's clock: a block's own
 * timestamp would cost one more read before every answer.
 */
export type MinedFigures = { gasUsed: string | null; effectiveGasPrice: string | null; minedAt: string };

/** The receipt fields read; a node that omits effectiveGasPrice (pre-London receipts) leaves it unknown. */
export type ReceiptCost = { gasUsed: bigint; effectiveGasPrice?: bigint | null };

export function minedFigures(receipt: ReceiptCost, minedAt = new Date()): MinedFigures {
  return {
    gasUsed: receipt.gasUsed.toString(),
    effectiveGasPrice: receipt.effectiveGasPrice == null ? null : receipt.effectiveGasPrice.toString(),
    minedAt: minedAt.toISOString(),
  };
}
