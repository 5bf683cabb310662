import { and, eq } from "drizzle-orm";
import type { Async } from "../db/async-port";
import type { PgDb } from "../db/postgres/open";
import { x402PaymentIdentifiers } from "../db/postgres/x402-schema";
import type { X402PaymentIdentifier } from "../db/x402-schema";
import {
  lowerIdentifierBinding,
  type NewPaymentIdentifier,
  type PaymentIdentifierStore,
} from "./payment-identifier-store";

/**
 * x402's payment identifiers on PostgreSQL: the same rows as on SQLite. The binding is one
 * `INSERT … ON CONFLICT DO NOTHING` on (payer, identifier): of instances binding one id at once, the first
 * insert wins and every one of them reads that row back.
 */
export function createPaymentIdentifierStorePostgres(db: PgDb): Async<PaymentIdentifierStore> {
  const t = x402PaymentIdentifiers;
  const findIdentifier = async (payer: string, identifier: string) => {
    const [row] = await db
      .select()
      .from(t)
      .where(and(eq(t.payer, payer.toLowerCase()), eq(t.identifier, identifier)));
    return row as X402PaymentIdentifier | undefined;
  };
  return {
    findIdentifier,
    async bindIdentifier(binding: NewPaymentIdentifier) {
      const values = lowerIdentifierBinding(binding);
      await db
        .insert(t)
        .values({ ...values, createdAt: new Date().toISOString() })
        .onConflictDoNothing({ target: [t.payer, t.identifier] });
      return (await findIdentifier(values.payer, values.identifier)) as X402PaymentIdentifier;
    },
  };
}
