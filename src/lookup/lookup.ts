import { paymentIdOf } from "@relay402/client";
import type { Address } from "viem";
import type { RowFilter, SettlementRow } from "../dashboard/records";
import type { FlowContext } from "../flow";
import { shortReason } from "../logger";
import type { LookupStore } from "./lookup-store";
import { FILL_PAGE, ID_SOURCES, idNetworks, paymentIdOfRow } from "./payment-ids";

/** Most payments one page of a listing answers. */
export const MAX_LOOKUP_PAGE = 200;
const DEFAULT_LOOKUP_PAGE = 50;
/** How often the ids of new journal rows are filled in the background (a lookup fills them first anyway). */
const FILL_EVERY_MS = 2_000;
/** Pages of a backlog filled per call: rows from before the column are filled over a few calls, never all at once. */
const FILL_PAGES_PER_CALL = 20;

/** pending (not concluded yet) · settled (the transaction or UserOp succeeded) · failed (reverted, refused, never mined). */
export type PaymentStatus = "pending" | "settled" | "failed";

/** A payment as the lookup answers it: the dashboard's row (records.ts) under the names of the public API. */
export type PaymentRecord = {
  paymentId: string | null;
  status: PaymentStatus;
  flow: SettlementRow["flow"];
  network: string;
  payer: string;
  payee: string | null;
  payees: string[];
  token: string | null;
  amount: string | null;
  fee: string | null;
  transaction: string | null;
  block: number | null;
  gasUsed: string | null;
  effectiveGasPrice: string | null;
  createdAt: string;
  sentAt: string | null;
  minedAt: string | null;
  failureReason: string | null;
};

export const paymentRecordOf = (row: SettlementRow): PaymentRecord => ({
  paymentId: row.paymentId,
  status: row.status === "success" ? "settled" : row.status,
  flow: row.flow,
  network: row.network,
  payer: row.payer,
  payee: row.payee,
  payees: row.payees,
  token: row.token,
  amount: row.amount,
  fee: row.fee,
  transaction: row.txHash,
  block: row.block,
  gasUsed: row.gasUsed,
  effectiveGasPrice: row.effectiveGasPrice,
  createdAt: row.createdAt,
  sentAt: row.sentAt,
  minedAt: row.minedAt,
  failureReason: row.status === "failed" ? (row.error ?? "failed") : null,
});

const RANK: Record<PaymentStatus, number> = { settled: 0, pending: 1, failed: 2 };

/**
 * The one payment an id names. Two records can share an id (an EOA payment and an EOA swap signed with the same
 * relayer nonce; the chain accepts only one): the settled one, else the one in flight, else the newest failure.
 */
const bestOf = (records: PaymentRecord[]) =>
  records.sort((a, b) => RANK[a.status] - RANK[b.status] || b.createdAt.localeCompare(a.createdAt))[0];

export type ListingFilter = Omit<RowFilter, "sources" | "paymentId" | "txHash"> & { limit?: number };

export function createPaymentLookup(context: FlowContext, store: LookupStore) {
  let filling: Promise<void> | undefined;
  let filler: ReturnType<typeof setInterval> | undefined;

  const fillSource = async (source: (typeof ID_SOURCES)[number]) => {
    const networks = idNetworks(context.config, source);
    for (let page = 0; page < FILL_PAGES_PER_CALL; page++) {
      const rows = await store.unfilled(source, networks);
      if (rows.length === 0) return;
      await store.fill(
        source.table,
        rows.map((row) => ({ id: row.id, paymentId: paymentIdOfRow(context.config, source, row) })),
      );
      if (rows.length < FILL_PAGE) return;
    }
  };
  /** Gives the journal rows claimed since the last call their ids; concurrent callers share one pass. */
  const fillIds = () => {
    filling ??= Promise.all(ID_SOURCES.map(fillSource))
      .then(() => undefined)
      .finally(() => {
        filling = undefined;
      });
    return filling;
  };
  const fillQuietly = () =>
    fillIds().catch((error) => context.logger.warn({ event: "payment_ids_fill_failed", reason: shortReason(error) }));
  // A failed fill is logged and the read goes on: rows claimed since the last fill are then found by transaction only.
  const rows = async (filter: RowFilter, limit: number) => {
    await fillQuietly();
    return (await store.rows(filter, limit)).map(paymentRecordOf);
  };

  return {
    fillIds,
    start() {
      void fillQuietly();
      filler = setInterval(fillQuietly, FILL_EVERY_MS);
      filler.unref?.();
    },
    async stop() {
      clearInterval(filler);
      await filling?.catch(() => undefined);
    },

    /** The payment an id names; undefined when it was never sent, or was released (its body may be settled again). */
    async byId(paymentId: string): Promise<PaymentRecord | undefined> {
      return bestOf(await rows({ paymentId }, 10));
    },

    /** The id of a payment by its nonce space, as a client computes it from its signed body (paymentIdOf). */
    idOf(key: { network: string; contract: string; payer: string; nonce: string }): string | undefined {
      const network = context.config.networks[key.network as keyof typeof context.config.networks];
      if (!network) return undefined;
      return paymentIdOf({
        chainId: network.chainId,
        contract: key.contract as Address,
        payer: key.payer as Address,
        nonce: BigInt(key.nonce),
      });
    },

    /** Every payment one transaction carried (a bundle carries several UserOps), newest first. */
    byTransaction: (hash: string) => rows({ txHash: hash }, MAX_LOOKUP_PAGE),

    /** A page of payments, newest first; `next` is the `before` of the following page. */
    async list(filter: ListingFilter) {
      const { limit = DEFAULT_LOOKUP_PAGE, ...rest } = filter;
      const payments = await rows(rest, limit);
      return { payments, next: payments.length === limit ? (payments.at(-1)?.createdAt ?? null) : null };
    },
  };
}

export type PaymentLookup = ReturnType<typeof createPaymentLookup>;
