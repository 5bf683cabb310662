import type { TSchema } from "@sinclair/typebox";
import {
  X402SettleResponseSchema,
  X402V1BodySchema,
  X402V2BodySchema,
  X402VerifyResponseSchema,
} from "../../x402/openapi-schemas";
import { X402_EXAMPLES } from "./examples";

/** A body a route also takes or gives besides its own schema's, with its example. */
export type Alternative = { summary: string; schema: TSchema; example: unknown };
type Alternatives = {
  /** Appended to the route's description. */
  note: string;
  request: Record<string, Alternative>;
  responses: Record<string, Record<string, Alternative>>;
};

const NOTE =
  "An x402 body (a top-level `x402Version` of 1 or 2, as x402's HTTPFacilitatorClient sends it) is answered in x402's shapes with x402 reason codes, always 200; only 413 and 429 keep the error envelope. See the x402 tag.";

const requests = {
  x402v2: {
    summary: "x402 v2, exact with EIP-3009 (base)",
    schema: X402V2BodySchema,
    example: X402_EXAMPLES.requests.v2,
  },
  x402v2Permit2: {
    summary: "x402 v2, exact with Permit2 (bsc, when GET /supported lists eip155:56)",
    schema: X402V2BodySchema,
    example: X402_EXAMPLES.requests.v2Permit2,
  },
  x402v1: {
    summary: "x402 v1, exact with EIP-3009 (base)",
    schema: X402V1BodySchema,
    example: X402_EXAMPLES.requests.v1,
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
        x402Valid: { summary: "x402: valid", schema: X402VerifyResponseSchema, example: X402_EXAMPLES.verify.valid },
        x402Invalid: {
          summary: "x402: refused, with x402's reason code",
          schema: X402VerifyResponseSchema,
          example: X402_EXAMPLES.verify.invalid,
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
          example: X402_EXAMPLES.settle.success,
        },
        x402Repeated: {
          summary: "x402: the same payment settled again (or concurrently)",
          schema: X402SettleResponseSchema,
          example: X402_EXAMPLES.settle.repeated,
        },
      },
    },
  },
};
