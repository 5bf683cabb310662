/**
 * OpenAPI examples of the smart-wallet payment routes (declared in ./flow.ts), of shapes the routes' schemas
 * accept; test/http/openapi.test.ts checks each.
 */
import {
  type Examples,
  FEE_RECIPIENT,
  hash,
  MERCHANT,
  PAYER,
  pendingExample,
  SIGNATURE,
  TOKEN,
  WALLET,
} from "../examples";
import { exampleUserOp } from "../userops/examples";

export const WALLET_EXAMPLES: Record<string, Examples> = {
  "POST /wallet/verify": {
    request: {
      walletAddress: WALLET,
      transactions: [{ to: MERCHANT, amount: "1000000000000000000", token: TOKEN }],
      paymentRequirements: { network: "bsc" },
    },
    responses: {
      200: {
        isValid: true,
        payer: PAYER,
        userOp: exampleUserOp("0x"),
        userOpHash: hash("b"),
        feeAmount: "10000000000000000",
        totalAmount: "1010000000000000000",
      },
    },
  },
  "POST /wallet/settle": {
    request: { userOp: exampleUserOp(SIGNATURE), signature: SIGNATURE },
    responses: {
      200: {
        success: true,
        paymentId: hash("b"),
        txHash: hash("c"),
        userOpHash: hash("b"),
        payments: [
          { to: MERCHANT, amount: "1000000000000000000", token: TOKEN },
          { to: FEE_RECIPIENT, amount: "10000000000000000", token: TOKEN },
        ],
      },
      202: pendingExample(hash("b"), WALLET),
    },
  },
};
