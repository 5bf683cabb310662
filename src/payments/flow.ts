import type { Flow } from "../flow";
import { createPayments, type Payments } from "./payments";
import { paymentRoutes } from "./routes";

/** EOA payments: a signed TransferWithAuthorization settled through the relayer (the settlement kernel's own records). */
export const paymentsFlow: Flow<"payments", Payments> = {
  name: "payments",
  create: (context) => createPayments(context),
  routes: (payments, { readers }) => paymentRoutes(payments, readers),
  sending: { "/settle": "eoa" },
  reconcile: (payments, which) => payments.reconcile(which),
};
