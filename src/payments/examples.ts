/**
 * OpenAPI examples of the EOA payment routes (declared in ./flow.ts), of shapes the routes' schemas accept;
 * test/http/openapi.test.ts checks each.
 */
import {
  type Examples,
  exampleAuthorization,
  hash,
  MERCHANT,
  PAYER,
  PAYMENT_ID,
  pendingExample,
  RELAYER,
  TOKEN,
} from "../examples";

const body = {
  paymentPayload: exampleAuthorization("1000000000000000000"),
  paymentRequirements: { network: "bsc", relayerContract: RELAYER },
};

export const PAYMENT_EXAMPLES: Record<string, Examples> = {
  "POST /verify": { request: body, responses: { 200: { isValid: true, payer: PAYER } } },
  "POST /settle": {
    request: body,
    responses: {
      200: {
        success: true,
        paymentId: PAYMENT_ID,
        transaction: hash("a").toLowerCase(),
        network: "bsc",
        payer: PAYER.toLowerCase(),
        blockNumber: 1235,
        payment: { to: MERCHANT.toLowerCase(), amount: "1000000000000000000", token: TOKEN.toLowerCase() },
      },
      202: pendingExample(PAYMENT_ID, PAYER, hash("a").toLowerCase()),
    },
  },
};
