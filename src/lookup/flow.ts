import type { Flow } from "../flow";
import { LOOKUP_EXAMPLES } from "./examples";
import { createPaymentLookup, type PaymentLookup } from "./lookup";
import { type LookupStore, lookupStore } from "./lookup-store";
import { lookupRoutes } from "./routes";

/**
 * The payment lookup: every payment's record by its id, its transaction or its nonce space, and listings for the
 * admin and merchants. It reads the dashboard's rows (src/dashboard/records.ts), so the two never disagree, and
 * settles nothing: no network enables it.
 */
export const lookupFlow: Flow<"lookup", PaymentLookup, LookupStore> = {
  name: "lookup",
  store: lookupStore,
  create: (context, store) => createPaymentLookup(context, store),
  routes: (lookup, context) => lookupRoutes(lookup, context),
  start: (lookup) => lookup.start(),
  stop: (lookup) => lookup.stop(),
  enabledOn: () => false,
  keyedPaths: ["/payments"],
  openapi: {
    tags: [
      {
        name: "Payments lookup",
        order: 80,
        description:
          "What happened to a payment: its status (pending, settled, failed) and record by its id, which a client " +
          "computes from its signed body before it calls (paymentIdOf in @relay402/client) or reads from a settle " +
          "answer; by transaction; and listings for the operator and merchants. docs/payment-lookup.md.",
      },
    ],
    examples: LOOKUP_EXAMPLES,
  },
};
