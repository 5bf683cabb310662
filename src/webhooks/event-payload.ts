import { type PaymentRecord, paymentRecordOf } from "../lookup/lookup";
import { PAYMENT_SOURCES } from "./event-types";
import type { OutboxEvent, WebhookStore } from "./webhook-store";

/** An event's data as fanned out: what endpoints filter on, and the JSON every delivery carries; none to send. */
export type RenderedEvent = { data: unknown; payees?: readonly string[] } | undefined;

const isPaymentSource = (source: string): source is (typeof PAYMENT_SOURCES)[number] =>
  (PAYMENT_SOURCES as readonly string[]).includes(source);

/**
 * A funded approve's row under the names of the public API, with the status of the step its event reports: the row
 * is read when the event is fanned out, by then often further on (an onboarding.funded read once the approve is
 * mined and its payment settled would say `used`).
 */
const fundedApprovalOf = (row: Record<string, unknown>, type: OutboxEvent["type"]) => ({
  id: Number(row.id),
  status: type === "onboarding.funded" ? "approve_sent" : type.replace(/^onboarding\./, ""),
  network: row.network,
  payer: row.payer,
  token: row.token,
  spender: row.spender,
  nonce: Number(row.nonce),
  approveTransaction: row.approve_hash,
  fundingWei: row.funding_wei,
  fundingTransaction: row.funding_tx_hash ?? null,
  fundingFeeWei: row.funding_fee_wei ?? null,
  approveCostWei: row.approve_cost_wei ?? null,
  keptWei: row.kept_wei ?? null,
  failureReason: row.error ?? null,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/**
 * The data of an event whose payload a trigger left empty: a payment's record as the lookup answers it (the
 * dashboard's row, src/dashboard/records.ts), or a funded approve's row, read when the event is fanned out. A
 * record gone by then (a failure released so the body may be settled again) or a payment.pending whose payment
 * has concluded since sends nothing: the lookup would no longer say so.
 */
export async function renderEvent(store: WebhookStore, event: OutboxEvent): Promise<RenderedEvent> {
  if (event.payload !== null) {
    const data = JSON.parse(event.payload) as { payees?: string[] } | null;
    return { data, payees: Array.isArray(data?.payees) ? data.payees : undefined };
  }
  if (event.recordId === null) return undefined;
  if (isPaymentSource(event.source)) {
    const [row] = await store.paymentRows({ sources: [event.source], recordId: event.recordId }, 1);
    if (!row) return undefined;
    const record: PaymentRecord = paymentRecordOf(row);
    if (event.type === "payment.pending" && record.status !== "pending") return undefined;
    return { data: record, payees: record.payees };
  }
  if (event.source === "funded_approvals") {
    const row = await store.fundedApproval(event.recordId);
    return row && { data: fundedApprovalOf(row, event.type) };
  }
  return undefined;
}
