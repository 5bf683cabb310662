import { and, asc, desc, eq, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { PgDb } from "../db/postgres/open";
import { deploymentBatches, deploymentWallets } from "../db/postgres/schema";
import type { DeploymentBatch, DeploymentWallet } from "../db/schema";
import {
  type AsyncDeploymentStore,
  IN_FLIGHT,
  type NewWallet,
  type Phase,
  RETRYABLE,
  UNPAID,
  WalletReservedError,
} from "./deployment-store";
import { outcomeFigures, reservedWalletRow, stepColumns as stepColumnsOf } from "./wallet-rows";

const statusColumn = (phase: Phase) =>
  phase === "deployment" ? deploymentWallets.deploymentStatus : deploymentWallets.fundingStatus;

/** stepColumns (deployment-store.ts) with this schema's row type. */
const stepColumns = (phase: Phase, fields: Parameters<typeof stepColumnsOf>[1]) =>
  stepColumnsOf<Partial<typeof deploymentWallets.$inferInsert>>(phase, fields);

// The rows are the SQLite store's row types: the two schemas are one (test/db/postgres-schema.test.ts).
const asBatch = (row: unknown) => row as DeploymentBatch;
const asWallets = (rows: unknown[]) => rows as DeploymentWallet[];

/**
 * The deployment store of deployment-store.ts on PostgreSQL, for several instances on one database: the same port
 * (as promises), the same rows, and every state change that must not race one statement or one transaction.
 *
 * - `create`: the wallets are reserved by the partial unique index on (network, wallet_address) WHERE reserved,
 *   through `INSERT … ON CONFLICT … DO NOTHING RETURNING` in the batch's transaction: a wallet another transaction
 *   reserved (committed, or committing: the insert waits for it) is not returned, and the whole batch is rolled back
 *   with WalletReservedError. There is no read before the write for a concurrent batch to slip past (SQLite's
 *   store may read first: it is one connection, and a synchronous transaction has nobody in between). The wallets
 *   are inserted in address order, so two batches sharing two wallets wait on each other in one order, never in a
 *   deadlock.
 * - `lease`: one conditional `UPDATE … WHERE status IN (pending, failed) RETURNING id`; a concurrent lease of the
 *   same row waits for the first one's commit, then finds the row `sending` and skips it (READ COMMITTED
 *   re-checks the WHERE on the updated row), so concurrent leases win disjoint rows.
 * - `countFailedAttempt`: one transaction reading the row `FOR UPDATE`, so two counts never read the same count.
 */
export function createDeploymentStorePostgres(db: PgDb): AsyncDeploymentStore {
  const now = () => new Date().toISOString();
  const w = deploymentWallets;
  const b = deploymentBatches;

  const walletsOf = async (batchId: number) =>
    asWallets(await db.select().from(w).where(eq(w.batchId, batchId)).orderBy(asc(w.position)));
  const batch = async (id: number) => {
    const [row] = await db.select().from(b).where(eq(b.id, id));
    return row ? asBatch(row) : undefined;
  };

  return {
    batch,
    walletsOf,

    async findBatch(batchKey) {
      const [row] = await db.select().from(b).where(eq(b.batchKey, batchKey));
      return row ? asBatch(row) : undefined;
    },

    async reservation(network, walletAddress) {
      const [row] = await db
        .select()
        .from(w)
        .where(and(eq(w.network, network), eq(w.walletAddress, walletAddress.toLowerCase()), eq(w.reserved, true)));
      return row as DeploymentWallet | undefined;
    },

    create(newBatch, wallets) {
      const time = now();
      return db.transaction(async (tx) => {
        const [inserted] = await tx
          .insert(b)
          .values({ ...newBatch, paymentStatus: "pending", createdAt: time, updatedAt: time })
          .returning();
        if (!inserted) throw new Error("deployment batch not inserted");
        if (wallets.length === 0) return asBatch(inserted);
        const rows = wallets
          .map((wallet, position) => reservedWalletRow(wallet, position, inserted, time))
          .sort((x, y) => (x.walletAddress < y.walletAddress ? -1 : x.walletAddress > y.walletAddress ? 1 : 0));
        const reserved = await tx
          .insert(w)
          .values(rows)
          .onConflictDoNothing({ target: [w.network, w.walletAddress], where: sql`reserved` })
          .returning({ position: w.position });
        if (reserved.length < rows.length) {
          const got = new Set(reserved.map((row) => row.position));
          const taken = wallets.find((_, position) => !got.has(position)) as NewWallet;
          // Thrown inside the transaction: the batch and every reservation of it are rolled back. The address as
          // given, as SQLite's store reports it.
          throw new WalletReservedError(taken.walletAddress);
        }
        return asBatch(inserted);
      });
    },

    async setPayment(batchId, payment) {
      await db
        .update(b)
        .set({
          paymentStatus: payment.status,
          ...(payment.txHash !== undefined ? { paymentTxHash: payment.txHash } : {}),
          ...(payment.error !== undefined ? { paymentError: payment.error } : {}),
          updatedAt: now(),
        })
        .where(and(eq(b.id, batchId), payment.status === "sending" ? inArray(b.paymentStatus, UNPAID) : undefined));
    },

    async failPayment(batchId, failure) {
      await db.transaction(async (tx) => {
        const time = now();
        await tx
          .update(b)
          .set({
            paymentStatus: "failed",
            paymentTxHash: failure.txHash,
            paymentError: failure.error,
            result: JSON.stringify(failure.result),
            updatedAt: time,
          })
          .where(eq(b.id, batchId));
        await tx.update(w).set({ reserved: false, updatedAt: time }).where(eq(w.batchId, batchId));
      });
    },

    async paidWithFundings(batchId, txHash) {
      await db.transaction(async (tx) => {
        const time = now();
        await tx
          .update(b)
          .set({ paymentStatus: "success", paymentTxHash: txHash, paymentError: null, updatedAt: time })
          .where(eq(b.id, batchId));
        await tx
          .update(w)
          .set(stepColumns("funding", { status: "success", txHash, error: null }))
          .where(and(eq(w.batchId, batchId), eq(w.fundingRequested, true)));
      });
    },

    async discard(batchId) {
      await db.transaction(async (tx) => {
        await tx.delete(w).where(eq(w.batchId, batchId));
        await tx.delete(b).where(eq(b.id, batchId));
      });
    },

    async saveResult(batchId, result) {
      await db
        .update(b)
        .set({ result: JSON.stringify(result), updatedAt: now() })
        .where(eq(b.id, batchId));
    },

    async lease(phase, ids, nowSeconds) {
      if (ids.length === 0) return [];
      const due =
        phase === "deployment"
          ? or(isNull(w.deploymentRetryAfter), lte(w.deploymentRetryAfter, nowSeconds))
          : undefined;
      const rows = await db
        .update(w)
        .set(stepColumns(phase, { status: "sending" }))
        .where(and(inArray(w.id, ids), inArray(statusColumn(phase), [...RETRYABLE]), due))
        .returning({ id: w.id });
      return rows.map((row) => row.id).sort((x, y) => x - y);
    },

    countFailedAttempt(id, policy, nowSeconds) {
      return db.transaction(async (tx) => {
        const [row] = await tx.select().from(w).where(eq(w.id, id)).for("update");
        if (row?.deploymentStatus !== "failed") return { abandoned: false, reason: null };
        const attempts = row.deploymentAttempts + 1;
        const abandoned = attempts >= policy.maxAttempts;
        const reason = abandoned
          ? `gave up after ${attempts} failed deployment attempts (last: ${row.deploymentError ?? "failed"})`
          : row.deploymentError;
        const retryAfter = nowSeconds + policy.backoffSeconds * 2 ** Math.min(attempts - 1, 20);
        await tx
          .update(w)
          .set({
            ...stepColumns("deployment", abandoned ? { status: "abandoned", error: reason } : {}),
            deploymentAttempts: attempts,
            deploymentRetryAfter: abandoned ? null : retryAfter,
          })
          .where(eq(w.id, id));
        return { abandoned, reason };
      });
    },

    async markSent(phase, ids, txHash, rawTx) {
      await db
        .update(w)
        .set(stepColumns(phase, { status: "sent", txHash, rawTx, error: null }))
        .where(inArray(w.id, ids));
    },

    async markRefused(phase, ids, error) {
      await db
        .update(w)
        .set(stepColumns(phase, { status: "failed", txHash: null, rawTx: null, sentAt: null, error }))
        .where(inArray(w.id, ids));
    },

    async markReplaced(phase, ids, txHash) {
      await db.update(w).set(stepColumns(phase, { txHash })).where(inArray(w.id, ids));
    },

    async markOutcome(phase, id, outcome) {
      // One conditional UPDATE: of two instances resolving the same transaction, one concludes the row.
      const concluded = await db
        .update(w)
        .set(
          stepColumns(phase, {
            status: outcome.status,
            txHash: outcome.txHash,
            error: outcome.error ?? null,
            ...outcomeFigures(outcome.mined),
          }),
        )
        .where(and(eq(w.id, id), inArray(statusColumn(phase), [...IN_FLIGHT])))
        .returning({ id: w.id });
      return concluded.length > 0;
    },

    async batchesFor(scope) {
      const conditions = [
        scope.paymentTxHash ? eq(b.paymentTxHash, scope.paymentTxHash.toLowerCase()) : undefined,
        scope.payer ? eq(b.payer, scope.payer.toLowerCase()) : undefined,
        scope.network ? eq(b.network, scope.network) : undefined,
      ].filter((condition) => condition !== undefined);
      const rows = await db
        .select()
        .from(b)
        .where(and(...conditions))
        .orderBy(desc(b.id));
      return rows.map(asBatch);
    },

    async walletsOfOwner(owner, network) {
      const rows = await db
        .select({ wallet: w, batch: b })
        .from(w)
        .innerJoin(b, eq(w.batchId, b.id))
        .where(
          and(eq(w.owner, owner.toLowerCase()), eq(w.reserved, true), network ? eq(w.network, network) : undefined),
        )
        // Oldest batch first, each in its wallets' order: SQLite's id order (its ids follow the positions; here the
        // wallets of a batch are inserted in address order, see create).
        .orderBy(asc(w.batchId), asc(w.position));
      return rows as { wallet: DeploymentWallet; batch: DeploymentBatch }[];
    },

    async unfinished(before) {
      const batches = await db
        .select()
        .from(b)
        .where(and(inArray(b.paymentStatus, ["pending", "sending"]), lt(b.updatedAt, before)))
        .orderBy(asc(b.id));
      const wallets = await db
        .select()
        .from(w)
        .where(
          and(
            or(inArray(w.deploymentStatus, ["sending", "sent"]), inArray(w.fundingStatus, ["sending", "sent"])),
            lt(w.updatedAt, before),
          ),
        )
        .orderBy(asc(w.id));
      return { batches: batches.map(asBatch), wallets: asWallets(wallets) };
    },

    async unleaseAll(before) {
      const time = now();
      await db.transaction(async (tx) => {
        await tx
          .update(w)
          .set({ deploymentStatus: "pending", updatedAt: time })
          .where(and(eq(w.deploymentStatus, "sending"), lt(w.updatedAt, before)));
        await tx
          .update(w)
          .set({ fundingStatus: "pending", updatedAt: time })
          .where(and(eq(w.fundingStatus, "sending"), lt(w.updatedAt, before)));
      });
    },
  };
}
