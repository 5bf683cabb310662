/**
 * What the OpenAPI document shows of every flow: the shapes a flow declares its tag, examples and alternative
 * bodies in (src/flow.ts → `openapi`), and the illustrative values the examples of every flow share (each flow's
 * own are in its folder's examples.ts; test/http/openapi.test.ts checks each example against its route's schema).
 * Nothing here is read by the service's logic; it imports nothing of the project, so any examples module may use it.
 */
import type { TSchema } from "@sinclair/typebox";

/** A route's request body and answers (by status) as the document shows them. */
export type Examples = { request?: unknown; responses?: Record<string, unknown> };

/** A body a route also takes or gives besides its own schema's, with its example (in the document only). */
export type Alternative = { summary: string; schema: TSchema; example: unknown };

/** The other bodies a route takes and answers, beside its own schema's: another flow's reading of them. */
export type Alternatives = {
  /** Appended to the route's description. */
  note: string;
  request: Record<string, Alternative>;
  responses: Record<string, Record<string, Alternative>>;
};

/** One tag of the document: what a client of the flow does, in order. */
export type OpenApiTag = {
  name: string;
  description: string;
  /**
   * Its place among the document's tags, lower first: the order a reader learns the flows in, not the order of
   * src/flows.ts (the routes' mount order). Not written to the document.
   */
  order: number;
};

/** A flow's part of the OpenAPI document. */
export type FlowOpenApi = {
  tags: readonly OpenApiTag[];
  /** By route as the document writes it, "METHOD /path" (path parameters as `{name}`, without the /api/v1 prefix). */
  examples?: Readonly<Record<string, Examples>>;
  /** Bodies this flow reads on other flows' routes (see BodyReader in src/flow.ts), by "METHOD /path". */
  alternatives?: Readonly<Record<string, Alternatives>>;
  /** Security schemes its routes name (a key of its own, Flow.key), by scheme name. */
  securitySchemes?: Readonly<
    Record<string, { type: "apiKey" | "http"; in?: "header"; name?: string; scheme?: string; description?: string }>
  >;
};

export const RELAYER = "0xe7a518451b8e7Abb526ea674A1D2A6720014de71";
export const TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
export const PAYER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
export const MERCHANT = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
export const FEE_RECIPIENT = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
export const EXECUTOR = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65";
export const WALLET = "0x2c5c3F2CC1F2e4F0F1B3A5B7C9D0E1f2A3B4C5d6";
export const PAYMASTER = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0";
export const PRIVACY_POOL = "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720";
export const CIRCUIT_ID = "unshield-a9f02a5930ae639b";
export const SWAP_V2_ROUTER = "0x10ED43C718714eb63d5aA57B78B54704E256024E";
export const SWAP_V3_ROUTER = "0x13f4EA83D0bd40E75C8222255bc855a974568Dd4";
export const WRAPPED_NATIVE = "0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c";
export const SIGNATURE = `0x${"ab".repeat(65)}`;
export const hash = (digit: string) => `0x${digit.repeat(64)}`;
export const SALT = hash("0");
/**
 * The example payment's id: paymentIdOf(chain id, the contract whose nonce space it is, payer, nonce) of a signed
 * authorization; a UserOp flow's is its userOpHash.
 */
export const PAYMENT_ID = hash("9");

/** The 202 answer of a settle whose payment is in flight. */
export const pendingExample = (paymentId: string, payer: string, transaction?: string) => ({
  success: false,
  status: "pending",
  paymentId,
  network: "bsc",
  payer,
  ...(transaction ? { transaction } : {}),
  message: "settlement transaction sent but not yet mined",
});

/** 2026-01-01T00:00:00Z, the examples' clock (unix seconds). */
export const NOW = 1_767_225_600;

/** The error envelope every route answers its 4xx and 5xx in, shown on each that has no example of its own. */
export const ERROR_EXAMPLE = {
  code: "payment_verification_error",
  message: `allowance too low: ${PAYER} allows spender ${RELAYER} 0, the payment needs 1000000000000000000; approve the relayer for at least that`,
  doc_url: "docs/errors.md#payment_verification_error",
  details: { spender: RELAYER, allowance: "0", needed: "1000000000000000000" },
};

/** A signed relayer authorization (TransferWithAuthorization) of `value` from PAYER, as /verify and /deploy take it. */
export const exampleAuthorization = (value: string, to = MERCHANT) => ({
  token: TOKEN,
  payload: {
    authorization: { from: PAYER, to, value, validAfter: NOW - 60, validBefore: NOW + 600, nonce: hash("1") },
    signature: SIGNATURE,
  },
});
