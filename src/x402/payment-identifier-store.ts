import { and, eq } from "drizzle-orm";
import type { Db } from "../db/open";
import { type X402PaymentIdentifier, x402PaymentIdentifiers } from "../db/x402-schema";

/** An identifier to bind: the payer's id, its exact body (canonical JSON) and the settlement it answers from. */
export type NewPaymentIdentifier = Omit<X402PaymentIdentifier, "id" | "createdAt">;

export const lowerIdentifierBinding = (binding: NewPaymentIdentifier): NewPaymentIdentifier => ({
  ...binding,
  payer: binding.payer.toLowerCase(),
  contract: binding.contract.toLowerCase(),
  nonce: binding.nonce.toLowerCase(),
});

/** x402's payment identifiers in SQLite; the binding is one `INSERT … ON CONFLICT DO NOTHING`. */
export function createPaymentIdentifierStore(db: Db) {
  const t = x402PaymentIdentifiers;
  const findIdentifier = (payer: string, identifier: string): X402PaymentIdentifier | undefined =>
    db
      .select()
      .from(t)
      .where(and(eq(t.payer, payer.toLowerCase()), eq(t.identifier, identifier)))
      .get();
  return {
    findIdentifier,
    /** Binds the id unless the payer's id is bound already; answers the row now bound, this one or the earlier one. */
    bindIdentifier(binding: NewPaymentIdentifier): X402PaymentIdentifier {
      const values = lowerIdentifierBinding(binding);
      db.insert(t)
        .values({ ...values, createdAt: new Date().toISOString() })
        .onConflictDoNothing({ target: [t.payer, t.identifier] })
        .run();
      return findIdentifier(values.payer, values.identifier) as X402PaymentIdentifier;
    },
  };
}

export type PaymentIdentifierStore = ReturnType<typeof createPaymentIdentifierStore>;
