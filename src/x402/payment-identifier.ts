import type { Async } from "../db/async-port";
import type { X402Settlement } from "../db/schema";
import { isObject, PAYMENT_IDENTIFIER } from "./extensions";
import type { PaymentIdentifierStore } from "./payment-identifier-store";
import { X402_REASONS } from "./reasons";
import type { X402Body } from "./wire";

/**
 * x402's `payment-identifier` extension, facilitator side (x402's specs/extensions/payment_identifier.md): a client
 * puts an idempotency key in `paymentPayload.extensions["payment-identifier"].info.id`. relay402 binds it to the
 * payer and the exact body when it claims the payment's settlement (so only after every check passed and the
 * transfer simulated: a body naming a payer that did not sign it binds nothing), keyed by (payer, id):
 * - the same id with the same body answers the settlement's result, `success: true` included, every time;
 * - the same id with another body answers 409 (`payment_identifier_conflict`);
 * - another payer's same id is another key: it neither sees nor blocks the first payer's.
 */

/** x402's format of an id: 16 to 128 characters, letters, digits, hyphens and underscores. */
const ID_FORMAT = /^[A-Za-z0-9_-]{16,128}$/;

/** An identified settle: the client's id and the body it came with, as canonical JSON (the bound "payload"). */
export type PaymentIdentifier = { id: string; payload: string };

/** JSON with every object's keys sorted: the same body gives the same text, whatever order a client wrote it in. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .filter((key) => value[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

/**
 * The body's payment identifier: null without one (a client that echoes the declaration without an id has none),
 * a message for an id outside x402's format.
 */
export function paymentIdentifierOf(
  body: X402Body,
): { ok: true; identifier: PaymentIdentifier | null } | { ok: false; message: string } {
  const payload = body.paymentPayload;
  const extension = isObject(payload) && isObject(payload.extensions) ? payload.extensions[PAYMENT_IDENTIFIER] : null;
  const info = isObject(extension) && isObject(extension.info) ? extension.info : null;
  if (!info || info.id === undefined) return { ok: true, identifier: null };
  if (typeof info.id !== "string" || !ID_FORMAT.test(info.id))
    return {
      ok: false,
      message: `paymentPayload.extensions["${PAYMENT_IDENTIFIER}"].info.id must be 16 to 128 characters of A-Z, a-z, 0-9, "-" and "_"`,
    };
  const { x402Version, paymentPayload, paymentRequirements } = body;
  return {
    ok: true,
    identifier: { id: info.id, payload: canonicalJson({ x402Version, paymentPayload, paymentRequirements }) },
  };
}

export const IDENTIFIER_CONFLICT = "this payment identifier names another payment of this payer";

/** An x402 answer (verify's or settle's) refusing an id bound to another body: served with HTTP 409. */
export const isIdentifierConflict = (answer: unknown) =>
  isObject(answer) &&
  (answer.errorReason === X402_REASONS.paymentIdentifierConflict ||
    answer.invalidReason === X402_REASONS.paymentIdentifierConflict);

/** The identifier rules over the store (SQLite's through asAsync, or PostgreSQL's). */
export function paymentIdentifiers(store: Async<PaymentIdentifierStore>) {
  const sameSettlement = (
    row: { payload: string; network: string; contract: string; nonce: string },
    identifier: PaymentIdentifier,
    record: X402Settlement,
  ) =>
    row.payload === identifier.payload &&
    row.network === record.network &&
    row.contract === record.contract &&
    row.nonce === record.nonce;
  return {
    /**
     * What the payer's id is bound to: nothing, this body, or another body (answered 409 before any work). A bound
     * body verifies as it did the first time (valid), so that a merchant's verify lets its retried settle through.
     */
    async boundTo(payer: string, identifier: PaymentIdentifier): Promise<"nothing" | "this" | "another"> {
      const row = await store.findIdentifier(payer, identifier.id);
      if (!row) return "nothing";
      return row.payload === identifier.payload ? "this" : "another";
    },
    /** Binds the id to the claimed record; false when the payer's id was bound to another body meanwhile. */
    async bind(identifier: PaymentIdentifier, record: X402Settlement) {
      const { network, contract, payer, nonce } = record;
      const row = await store.bindIdentifier({
        identifier: identifier.id,
        payload: identifier.payload,
        network,
        contract,
        payer,
        nonce,
      });
      return sameSettlement(row, identifier, record);
    },
    /**
     * True when the id is bound to this body and this settlement: its settle may answer success again (the one
     * exception to "one payment, one success"). A fresh id on an already settled body is bound to nothing.
     */
    async answersFor(identifier: PaymentIdentifier, record: X402Settlement) {
      const row = await store.findIdentifier(record.payer, identifier.id);
      return row !== undefined && sameSettlement(row, identifier, record);
    },
  };
}
