import { bigint, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";

// The PostgreSQL twin of src/db/x402-schema.ts (what each column means is documented there).

export const x402PaymentIdentifiers = pgTable(
  "x402_payment_identifiers",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    payer: text("payer").notNull(),
    identifier: text("identifier").notNull(),
    payload: text("payload").notNull(),
    network: text("network").notNull(),
    contract: text("contract").notNull(),
    nonce: text("nonce").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (table) => [uniqueIndex("x402_payment_identifiers_key").on(table.payer, table.identifier)],
);
