// OpenAPI examples of the payment lookup's answers, of shapes its schemas accept (test/http/openapi.test.ts checks each).
import { type Examples, hash, MERCHANT, PAYER, TOKEN } from "../examples";

const settled = {
  paymentId: hash("7"),
  status: "settled",
  flow: "eoa",
  network: "bsc",
  payer: PAYER.toLowerCase(),
  payee: MERCHANT.toLowerCase(),
  payees: [MERCHANT.toLowerCase()],
  token: TOKEN.toLowerCase(),
  amount: "3000000000000000007",
  fee: null,
  transaction: hash("5"),
  block: 45123456,
  gasUsed: "86520",
  effectiveGasPrice: "1000000000",
  createdAt: "2026-01-01T00:00:00.000Z",
  sentAt: "2026-01-01T00:00:00.120Z",
  minedAt: "2026-01-01T00:00:00.412Z",
  failureReason: null,
};

const notFound = {
  code: "not_found",
  message: "no payment with this id: never sent, or released (the same signed body may be settled again)",
  doc_url: "docs/errors.md#not_found",
  details: { paymentId: hash("7") },
};

export const LOOKUP_EXAMPLES: Record<string, Examples> = {
  "GET /payments/{paymentId}": { responses: { "200": settled, "404": notFound } },
  "GET /payments/by-transaction/{hash}": { responses: { "200": { payments: [settled], next: null } } },
  "GET /payments": { responses: { "200": { payments: [settled], next: null } } },
};
