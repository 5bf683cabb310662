import { paymentIdOf } from "@relay402/client";
import type { Address } from "viem";
import type { RowFilter, SettlementRow } from "../dashboard/records";
import type { FlowContext } from "../flow";
import { shortReason } from "../logger";
import type { LookupStore } from "./lookup-store";
import { backfillPaymentIds } from "./payment-id-backfill";

/** Most payments one page of a listing answers. */
export const MAX_LOOKUP_PAGE = 200;
const DEFAULT_LOOKUP_PAGE = 50;

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
  let backfill: Promise<void> | undefined;
  let stopping = false;
  const rows = async (filter: RowFilter, limit: number) => (await store.rows(filter, limit)).map(paymentRecordOf);

  return {
    /** The one backfill of rows claimed before their id was written by the claim; a failure is logged, not fatal. */
    start() {
      backfill = backfillPaymentIds(context, store, () => stopping).catch((error) =>
        context.logger.warn({ event: "payment_ids_backfill_failed", reason: shortReason(error) }),
      );
    },
    async stop() {
      stopping = true;
      await backfill;
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
