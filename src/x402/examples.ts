/**
 * OpenAPI examples of x402 (declared in ./flow.ts): /supported, and the x402 bodies and answers shown beside the
 * interface's own on /verify and /settle, of shapes x402's schemas accept; test/http/openapi.test.ts checks each and
 * sends each request example to the service.
 */
import {
  type Alternatives,
  EXECUTOR,
  type Examples,
  hash,
  MERCHANT,
  NOW,
  PAYER,
  PAYMENT_ID,
  SIGNATURE,
  TOKEN,
} from "../examples";
import {
  X402SettleResponseSchema,
  X402V1BodySchema,
  X402V2BodySchema,
  X402VerifyResponseSchema,
} from "./openapi-schemas";

// x402 (base, EIP-3009 on the USDC-like token; bsc with Permit2 through x402's proxy), as @x402/core sends it.
const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const PERMIT2_PROXY = "0x402085c248EeA27D92E8b30b2C58ed07f9E20001";
const PRICE = "1250000";
const x402Resource = { url: "https://shop.example/item", description: "an item", mimeType: "text/plain" };
const x402Requirements = {
  scheme: "exact",
  network: "eip155:8453",
  asset: USDC,
  amount: PRICE,
  payTo: MERCHANT,
  maxTimeoutSeconds: 300,
  extra: { name: "USD Coin", version: "2" },
};
const eip3009Payload = {
  signature: SIGNATURE,
  authorization: {
    from: PAYER,
    to: MERCHANT,
    value: PRICE,
    validAfter: String(NOW - 600),
    validBefore: String(NOW + 300),
    nonce: hash("1"),
  },
};
const permit2Requirements = {
  ...x402Requirements,
  network: "eip155:56",
  asset: TOKEN,
  amount: "1250000000000000000",
  extra: { assetTransferMethod: "permit2" },
};
const x402V2 = {
  x402Version: 2,
  paymentPayload: { x402Version: 2, resource: x402Resource, accepted: x402Requirements, payload: eip3009Payload },
  paymentRequirements: x402Requirements,
};
const x402V2Permit2 = {
  x402Version: 2,
  paymentPayload: {
    x402Version: 2,
    resource: x402Resource,
    accepted: permit2Requirements,
    payload: {
      signature: SIGNATURE,
      permit2Authorization: {
        from: PAYER,
        permitted: { token: TOKEN, amount: permit2Requirements.amount },
        spender: PERMIT2_PROXY,
        nonce: "1234567890",
        deadline: String(NOW + 300),
        witness: { to: MERCHANT, validAfter: String(NOW - 600) },
      },
    },
  },
  paymentRequirements: permit2Requirements,
};
const x402V1Requirements = {
  scheme: "exact",
  network: "base",
  maxAmountRequired: PRICE,
  resource: x402Resource.url,
  description: x402Resource.description,
  mimeType: x402Resource.mimeType,
  payTo: MERCHANT,
  maxTimeoutSeconds: 300,
  asset: USDC,
  extra: { name: "USD Coin", version: "2" },
};
const x402V1 = {
  x402Version: 1,
  paymentPayload: { x402Version: 1, scheme: "exact", network: "base", payload: eip3009Payload },
  paymentRequirements: x402V1Requirements,
};

/** x402's bodies and answers on /verify and /settle, documented beside the interface's own. */
const X402_BODIES = {
  requests: { v2: x402V2, v2Permit2: x402V2Permit2, v1: x402V1 },
  verify: {
    valid: { isValid: true, payer: PAYER },
    invalid: {
      isValid: false,
      invalidReason: "invalid_exact_evm_insufficient_balance",
      invalidMessage: "the payer's balance is below the value",
      payer: PAYER,
    },
  },
  settle: {
    success: {
      success: true,
      payer: PAYER,
      transaction: hash("a"),
      network: "eip155:8453",
      amount: PRICE,
      extra: { paymentId: PAYMENT_ID },
    },
    repeated: {
      success: false,
      errorReason: "invalid_exact_evm_nonce_already_used",
      errorMessage: "this payment was already settled for another request",
      payer: PAYER,
      transaction: hash("a"),
      network: "eip155:8453",
      extra: { paymentId: PAYMENT_ID },
    },
  },
};

/** The assets a kind settles, with the EIP-712 name and version the start read from each token. */
const SUPPORTED_EXTRA = {
  assets: [
    { asset: USDC, symbol: "USDC", decimals: 6, name: "USD Coin", version: "2", assetTransferMethod: "eip3009" },
  ],
};

export const X402_EXAMPLES: Record<string, Examples> = {
  "GET /supported": {
    responses: {
      200: {
        kinds: [
          { x402Version: 2, scheme: "exact", network: "eip155:8453", extra: SUPPORTED_EXTRA },
          { x402Version: 1, scheme: "exact", network: "base", extra: SUPPORTED_EXTRA },
        ],
        extensions: ["erc20ApprovalGasSponsoring", "payment-identifier"],
        signers: { "eip155:*": [EXECUTOR] },
      },
    },
  },
};

const NOTE =
  "An x402 body (a top-level `x402Version` of 1 or 2, as x402's HTTPFacilitatorClient sends it) is answered in x402's shapes with x402 reason codes, always 200; only 413 and 429 keep the error envelope. See the x402 tag.";

const requests = {
  x402v2: {
    summary: "x402 v2, exact with EIP-3009 (base)",
    schema: X402V2BodySchema,
    example: X402_BODIES.requests.v2,
  },
  x402v2Permit2: {
    summary: "x402 v2, exact with Permit2 (bsc, when GET /supported lists eip155:56)",
    schema: X402V2BodySchema,
    example: X402_BODIES.requests.v2Permit2,
  },
  x402v1: {
    summary: "x402 v1, exact with EIP-3009 (base)",
    schema: X402V1BodySchema,
    example: X402_BODIES.requests.v1,
  },
};

/**
 * What /verify and /settle take and answer for x402, in the document only: the routes validate the interface's
 * own body with its own schema (its 400s unchanged) and hand an x402 body to src/x402 before that schema runs.
 */
export const X402_ALTERNATIVES: Record<string, Alternatives> = {
  "POST /verify": {
    note: NOTE,
    request: requests,
    responses: {
      200: {
        x402Valid: { summary: "x402: valid", schema: X402VerifyResponseSchema, example: X402_BODIES.verify.valid },
        x402Invalid: {
          summary: "x402: refused, with x402's reason code",
          schema: X402VerifyResponseSchema,
          example: X402_BODIES.verify.invalid,
        },
      },
    },
  },
  "POST /settle": {
    note: `${NOTE} One payment, one success: only the first settle of an authorization answers success true.`,
    request: requests,
    responses: {
      200: {
        x402Success: {
          summary: "x402: settled",
          schema: X402SettleResponseSchema,
          example: X402_BODIES.settle.success,
        },
        x402Repeated: {
          summary: "x402: the same payment settled again (or concurrently)",
          schema: X402SettleResponseSchema,
          example: X402_BODIES.settle.repeated,
        },
      },
    },
  },
};
