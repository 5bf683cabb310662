import type { Flow } from "../flow";
import { PAYMENT_EXAMPLES } from "./examples";
import { createPayments, type Payments } from "./payments";
import { paymentRoutes } from "./routes";

/** EOA payments: a signed TransferWithAuthorization settled through the relayer (the settlement kernel's own records). */
export const paymentsFlow: Flow<"payments", Payments> = {
  name: "payments",
  create: (context) => createPayments(context),
  routes: (payments, { readers }) => paymentRoutes(payments, readers),
  openapi: {
    tags: [
      {
        name: "EOA payments",
        order: 10,
        description: `A payer with an ordinary key pays once per signature.
1. Once per token: \`approve(spender, amount)\` on the token, where \`spender\` is \`GET /config\` → \`networks.<name>.spender\` (the relayer). \`eip3009\` on a token does not remove this step: the relayer pulls with \`transferFrom\`.
2. Sign \`TransferWithAuthorization\` with viem's \`signTypedData({ domain: eip712Domain, ...signedTypes.TransferWithAuthorization, message })\` (no fee: the payment moves exactly \`value\`).
3. \`POST /verify\` (optional: checks without sending) and \`POST /settle\` (sends; idempotent per network, payer and nonce).
A merchant checks \`to\` and \`value\` itself: the service settles what the payer signed.
To cancel an unused authorization, sign \`CancelAuthorization\` (same domain) and call the relayer's \`cancelAuthorization\`.`,
      },
    ],
    examples: PAYMENT_EXAMPLES,
  },
  sending: { "/settle": "eoa" },
  capability: "eoa-payments",
  reconcile: (payments, which) => payments.reconcile(which),
  resume: (payments, which) => payments.reconcile(which),
};
