import { t } from "elysia";
import { PaymentRecordSchema } from "../lookup/schemas";
import { DeliverySchema } from "../webhooks/schemas";

// The answers of the dashboard's payment lookup, beside schemas.ts: the lookup's record schema names the
// dashboard's flows, so schemas.ts cannot import it back.

/** The payments a search names, each as GET /payments/{paymentId} answers it, with its webhook deliveries. */
export const PaymentsFoundSchema = t.Object({
  payments: t.Array(
    t.Object({
      record: PaymentRecordSchema,
      explorerUrl: t.Union([t.String(), t.Null()]),
      deliveries: t.Array(DeliverySchema, { description: "its events' deliveries, newest first (at most 50)" }),
    }),
  ),
});

export { EndpointListSchema as WebhookEndpointsSchema } from "../webhooks/schemas";
