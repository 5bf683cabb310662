import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

// x402's payment identifiers, beside its settlement records of src/db/schema.ts (drizzle.config.ts reads every schema file).

/**
 * x402's `payment-identifier` extension: the idempotency key a client puts in its payment, bound to the payer and
 * the exact body it came with, and to the settlement record (network, contract, payer, nonce) it answers from.
 * (payer, identifier) is unique: one payer's id names one body, and another payer's same id is another row.
 * Written only by the settle that claimed the payment's record, after every check passed and the transfer
 * simulated: a body naming a payer it was not signed by binds nothing (src/x402/payment-identifier.ts).
 */
export const x402PaymentIdentifiers = sqliteTable(
  "x402_payment_identifiers",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** Lowercase address. */
    payer: text("payer").notNull(),
    /** The client's id (16-128 characters of [A-Za-z0-9_-]), as sent. */
    identifier: text("identifier").notNull(),
    /** The body (x402Version, paymentPayload, paymentRequirements) as canonical JSON: keys sorted at every level. */
    payload: text("payload").notNull(),
    /** The settlement record's key besides the payer. */
    network: text("network").notNull(),
    contract: text("contract").notNull(),
    nonce: text("nonce").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (table) => [uniqueIndex("x402_payment_identifiers_key").on(table.payer, table.identifier)],
);

export type X402PaymentIdentifier = typeof x402PaymentIdentifiers.$inferSelect;
