import { and, eq } from "drizzle-orm";
import type { Async } from "../db/async-port";
import type { PgDb } from "../db/postgres/open";
import { x402Settlements } from "../db/postgres/schema";
import type { X402Settlement } from "../db/schema";
import { claimRecordAsync, createSettlementJournalPostgres } from "../settlement/settlement-journal-postgres";
import { createPaymentIdentifierStorePostgres } from "./payment-identifier-store-postgres";
import type { NewX402Settlement, X402SettlementKey, X402SettlementStore } from "./settlement-store";

/** The x402 settlement store on PostgreSQL: the port of settlement-store.ts with promises, the same rows. */
export type AsyncX402SettlementStore = Async<X402SettlementStore>;

const keyOf = (key: X402SettlementKey) => ({
  network: key.network,
  contract: key.contract.toLowerCase(),
  payer: key.payer.toLowerCase(),
  nonce: key.nonce.toLowerCase(),
});

/**
 * x402 settlements on PostgreSQL, one per (network, contract, payer, nonce), for several instances on one database.
 * The claim is one `INSERT … ON CONFLICT DO NOTHING RETURNING` on the unique key (claimRecordAsync), and the
 * one-success rule one conditional `UPDATE … RETURNING`: whichever instance runs it first gets the row, every
 * other one none, so a payment answers success once across all instances.
 */
export function createX402SettlementStorePostgres(db: PgDb): AsyncX402SettlementStore {
  const t = x402Settlements;
  const find = async (key: X402SettlementKey) => {
    const { network, contract, payer, nonce } = keyOf(key);
    const [row] = await db
      .select()
      .from(t)
      .where(and(eq(t.network, network), eq(t.contract, contract), eq(t.payer, payer), eq(t.nonce, nonce)));
    return row as X402Settlement | undefined;
  };
  const journal = createSettlementJournalPostgres<X402Settlement>(db, t);
  return {
    find,
    claim: (settlement: NewX402Settlement) =>
      claimRecordAsync(
        async () => {
          const time = new Date().toISOString();
          const [row] = await db
            .insert(t)
            .values({
              ...keyOf(settlement),
              recipient: settlement.recipient.toLowerCase(),
              token: (settlement.token ?? settlement.contract).toLowerCase(),
              amount: settlement.amount,
              validAfter: settlement.validAfter,
              validBefore: settlement.validBefore,
              signature: settlement.signature,
              paymentId: settlement.paymentId,
              status: "pending",
              createdAt: time,
              updatedAt: time,
            })
            .onConflictDoNothing({ target: [t.network, t.contract, t.payer, t.nonce] })
            .returning();
          return row as X402Settlement | undefined;
        },
        () => find(settlement),
      ),
    ...journal,
    ...createPaymentIdentifierStorePostgres(db),
    /** Drops a record never sent (or never mined) so that the payment can be settled again. */
    release: (id: number) => journal.release(id, true),
    /** True for exactly one caller per settled payment, across instances: the row's conditional update decides. */
    async takeSuccessAnswer(id: number) {
      const taken = await db
        .update(t)
        .set({ successAnswered: true, updatedAt: new Date().toISOString() })
        .where(and(eq(t.id, id), eq(t.status, "success"), eq(t.successAnswered, false)))
        .returning({ id: t.id });
      return taken.length === 1;
    },
  };
}
