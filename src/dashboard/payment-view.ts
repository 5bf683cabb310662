import type { FlowContext } from "../flow";
import { paymentRecordOf } from "../lookup/lookup";
import { endpointViews } from "../webhooks/endpoint-views";
import { webhookSettings } from "../webhooks/settings";
import type { WebhookStore } from "../webhooks/webhook-store";
import { type Dashboard, explorerTxUrl } from "./dashboard";
import type { DashboardStore } from "./dashboard-store";
import type { SettlementRow } from "./records";

/** What the dashboard reads of the webhooks' outbox: through the webhooks' own adapter, never a write. */
export type OutboxReads = Pick<WebhookStore, "deliveries" | "disabledEndpoints" | "endpointCounts">;

/** Payments one search answers at most (a payer's newest first), and deliveries listed per payment. */
export const MAX_FOUND = 20;
export const DELIVERIES_PER_PAYMENT = 50;

const HASH = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** How a search names payments: a 32-byte hex is a payment id or a transaction hash, an address a payer. */
export type PaymentSearch = { by: "hash"; hash: string } | { by: "payer"; payer: string };

export function paymentSearchOf(query: string): PaymentSearch | undefined {
  if (HASH.test(query)) return { by: "hash", hash: query.toLowerCase() };
  if (ADDRESS.test(query)) return { by: "payer", payer: query.toLowerCase() };
  return undefined;
}

/**
 * The dashboard's payment lookup: the records a payment id, a transaction or a payer names, each as the payment
 * lookup answers it (GET /payments/{paymentId}) with its webhook deliveries; and the webhook endpoints' counts.
 * Everything comes from the database, so every instance on one PostgreSQL answers the same.
 */
export function createPaymentView(
  context: Pick<FlowContext, "config">,
  rows: DashboardStore["rows"],
  outbox: OutboxReads,
) {
  const endpoints = webhookSettings(context.config).endpoints;

  async function rowsOf(search: PaymentSearch): Promise<SettlementRow[]> {
    if (search.by === "payer") return rows({ payer: search.payer }, MAX_FOUND);
    // The same 32 bytes may be a payment's id or the transaction that carried it (a bundle carries several).
    const [byId, byTransaction] = await Promise.all([
      rows({ paymentId: search.hash }, MAX_FOUND),
      rows({ txHash: search.hash }, MAX_FOUND),
    ]);
    const seen = new Set<string>();
    return [...byId, ...byTransaction]
      .filter((row) => {
        const key = `${row.source}:${row.id}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      })
      .slice(0, MAX_FOUND);
  }

  return {
    async find(search: PaymentSearch) {
      const found = await rowsOf(search);
      const payments = await Promise.all(
        found.map(async (row) => ({
          record: paymentRecordOf(row),
          explorerUrl: explorerTxUrl(context, row.network, row.txHash),
          deliveries: await outbox.deliveries({
            record: { source: row.source, recordId: row.id },
            limit: DELIVERIES_PER_PAYMENT,
          }),
        })),
      );
      return { payments };
    },

    /** Every configured endpoint (no secret, no URL credentials or query) with its deliveries' counts. */
    webhookEndpoints: async () => ({ endpoints: await endpointViews(outbox, endpoints) }),
  };
}

export type PaymentView = ReturnType<typeof createPaymentView>;

/** The dashboard flow's service: its figures, and the payment lookup with the webhooks' deliveries. */
export type DashboardService = Dashboard & { payments: PaymentView };
