import { and, desc, eq, inArray, isNull, lt, lte, or } from "drizzle-orm";
import type { Db } from "../db/open";
import { type DeploymentBatch, deploymentBatches, deploymentWallets } from "../db/schema";
import {
  type DeploymentStore,
  IN_FLIGHT,
  type NewBatch,
  type NewWallet,
  type Phase,
  RETRYABLE,
  UNPAID,
  WalletReservedError,
} from "./deployment-store";
import { outcomeFigures, reservedWalletRow, stepColumns } from "./wallet-rows";

const statusColumn = (phase: Phase) =>
  phase === "deployment" ? deploymentWallets.deploymentStatus : deploymentWallets.fundingStatus;

/** Deployment batches and their wallets in SQLite; every state change is one statement or one transaction. */
export function createDeploymentStore(db: Db): DeploymentStore {
  const now = () => new Date().toISOString();
  const walletsOf = (batchId: number) =>
    db
      .select()
      .from(deploymentWallets)
      .where(eq(deploymentWallets.batchId, batchId))
      .orderBy(deploymentWallets.position)
      .all();
  const batch = (id: number) => db.select().from(deploymentBatches).where(eq(deploymentBatches.id, id)).get();
  const reservation = (network: string, walletAddress: string) =>
    db
      .select()
      .from(deploymentWallets)
      .where(
        and(
          eq(deploymentWallets.network, network),
          eq(deploymentWallets.walletAddress, walletAddress.toLowerCase()),
          eq(deploymentWallets.reserved, true),
        ),
      )
      .get();

  return {
    batch,
    walletsOf,
    reservation,
    findBatch: (batchKey: string) =>
      db.select().from(deploymentBatches).where(eq(deploymentBatches.batchKey, batchKey)).get(),

    create(newBatch: NewBatch, wallets: NewWallet[]): DeploymentBatch {
      const time = now();
      return db.transaction((tx) => {
        const inserted = tx
          .insert(deploymentBatches)
          .values({ ...newBatch, paymentStatus: "pending", createdAt: time, updatedAt: time })
          .returning()
          .get();
        wallets.forEach((wallet, position) => {
          // One connection and a synchronous transaction: nothing runs between this read and the insert, and the
          // read sees the batch's own inserts. (The partial unique index deployment_wallets_reserved would refuse a
          // second reservation anyway; PostgreSQL's adapter lets that index decide, as several connections race.)
          if (reservation(newBatch.network, wallet.walletAddress)) throw new WalletReservedError(wallet.walletAddress);
          tx.insert(deploymentWallets)
            .values(reservedWalletRow(wallet, position, inserted, time))
            .run();
        });
        return inserted;
      });
    },

    setPayment(batchId, payment) {
      db.update(deploymentBatches)
        .set({
          paymentStatus: payment.status,
          ...(payment.txHash !== undefined ? { paymentTxHash: payment.txHash } : {}),
          ...(payment.error !== undefined ? { paymentError: payment.error } : {}),
          updatedAt: now(),
        })
        .where(
          and(
            eq(deploymentBatches.id, batchId),
            payment.status === "sending" ? inArray(deploymentBatches.paymentStatus, UNPAID) : undefined,
          ),
        )
        .run();
    },

    failPayment(batchId, failure) {
      db.transaction((tx) => {
        const time = now();
        tx.update(deploymentBatches)
          .set({
            paymentStatus: "failed",
            paymentTxHash: failure.txHash,
            paymentError: failure.error,
            result: JSON.stringify(failure.result),
            updatedAt: time,
          })
          .where(eq(deploymentBatches.id, batchId))
          .run();
        tx.update(deploymentWallets)
          .set({ reserved: false, updatedAt: time })
          .where(eq(deploymentWallets.batchId, batchId))
          .run();
      });
    },

    paidWithFundings(batchId: number, txHash: string) {
      db.transaction((tx) => {
        const time = now();
        tx.update(deploymentBatches)
          .set({ paymentStatus: "success", paymentTxHash: txHash, paymentError: null, updatedAt: time })
          .where(eq(deploymentBatches.id, batchId))
          .run();
        tx.update(deploymentWallets)
          .set(stepColumns("funding", { status: "success", txHash, error: null }))
          .where(and(eq(deploymentWallets.batchId, batchId), eq(deploymentWallets.fundingRequested, true)))
          .run();
      });
    },

    discard(batchId: number) {
      db.transaction((tx) => {
        tx.delete(deploymentWallets).where(eq(deploymentWallets.batchId, batchId)).run();
        tx.delete(deploymentBatches).where(eq(deploymentBatches.id, batchId)).run();
      });
    },

    saveResult(batchId: number, result: unknown) {
      db.update(deploymentBatches)
        .set({ result: JSON.stringify(result), updatedAt: now() })
        .where(eq(deploymentBatches.id, batchId))
        .run();
    },

    /**
     * pending|failed → sending for the given wallets, atomically: each row is leased by exactly one caller. A
     * deployment still in its backoff (`deploymentRetryAfter` after `nowSeconds`) is not leased.
     */
    lease(phase: Phase, ids: number[], nowSeconds: number): number[] {
      if (ids.length === 0) return [];
      const due =
        phase === "deployment"
          ? or(isNull(deploymentWallets.deploymentRetryAfter), lte(deploymentWallets.deploymentRetryAfter, nowSeconds))
          : undefined;
      return db
        .update(deploymentWallets)
        .set(stepColumns(phase, { status: "sending" }))
        .where(and(inArray(deploymentWallets.id, ids), inArray(statusColumn(phase), [...RETRYABLE]), due))
        .returning({ id: deploymentWallets.id })
        .all()
        .map((row) => row.id);
    },

    /**
     * A deployment transaction carrying this (failed) wallet was mined without deploying it: one more attempt.
     * Below `maxAttempts` the next one waits `backoffSeconds`, doubled per earlier attempt; at the cap the
     * deployment is abandoned (claims skip it) with the reason.
     */
    countFailedAttempt(id, policy, nowSeconds) {
      return db.transaction((tx) => {
        const row = tx.select().from(deploymentWallets).where(eq(deploymentWallets.id, id)).get();
        if (row?.deploymentStatus !== "failed") return { abandoned: false, reason: null };
        const attempts = row.deploymentAttempts + 1;
        const abandoned = attempts >= policy.maxAttempts;
        const reason = abandoned
          ? `gave up after ${attempts} failed deployment attempts (last: ${row.deploymentError ?? "failed"})`
          : row.deploymentError;
        const retryAfter = nowSeconds + policy.backoffSeconds * 2 ** Math.min(attempts - 1, 20);
        tx.update(deploymentWallets)
          .set({
            ...stepColumns("deployment", abandoned ? { status: "abandoned", error: reason } : {}),
            deploymentAttempts: attempts,
            deploymentRetryAfter: abandoned ? null : retryAfter,
          })
          .where(eq(deploymentWallets.id, id))
          .run();
        return { abandoned, reason };
      });
    },

    markSent(phase: Phase, ids: number[], txHash: string, rawTx: string) {
      db.update(deploymentWallets)
        .set(stepColumns(phase, { status: "sent", txHash, rawTx, error: null }))
        .where(inArray(deploymentWallets.id, ids))
        .run();
    },

    markRefused(phase: Phase, ids: number[], error: string) {
      db.update(deploymentWallets)
        .set(stepColumns(phase, { status: "failed", txHash: null, rawTx: null, sentAt: null, error }))
        .where(inArray(deploymentWallets.id, ids))
        .run();
    },

    markReplaced(phase: Phase, ids: number[], txHash: string) {
      db.update(deploymentWallets).set(stepColumns(phase, { txHash })).where(inArray(deploymentWallets.id, ids)).run();
    },

    markOutcome(phase, id, outcome) {
      const concluded = db
        .update(deploymentWallets)
        .set(
          stepColumns(phase, {
            status: outcome.status,
            txHash: outcome.txHash,
            error: outcome.error ?? null,
            ...outcomeFigures(outcome.mined),
          }),
        )
        .where(and(eq(deploymentWallets.id, id), inArray(statusColumn(phase), [...IN_FLIGHT])))
        .returning({ id: deploymentWallets.id })
        .all();
      return concluded.length > 0;
    },

    batchesFor(scope) {
      const conditions = [
        scope.paymentTxHash ? eq(deploymentBatches.paymentTxHash, scope.paymentTxHash.toLowerCase()) : undefined,
        scope.payer ? eq(deploymentBatches.payer, scope.payer.toLowerCase()) : undefined,
        scope.network ? eq(deploymentBatches.network, scope.network) : undefined,
      ].filter((condition) => condition !== undefined);
      return db
        .select()
        .from(deploymentBatches)
        .where(and(...conditions))
        .orderBy(desc(deploymentBatches.id))
        .all();
    },

    walletsOfOwner(owner: string, network?: string) {
      return db
        .select({ wallet: deploymentWallets, batch: deploymentBatches })
        .from(deploymentWallets)
        .innerJoin(deploymentBatches, eq(deploymentWallets.batchId, deploymentBatches.id))
        .where(
          and(
            eq(deploymentWallets.owner, owner.toLowerCase()),
            eq(deploymentWallets.reserved, true),
            network ? eq(deploymentWallets.network, network) : undefined,
          ),
        )
        .orderBy(deploymentWallets.id)
        .all();
    },

    unfinished(before: string) {
      const batches = db
        .select()
        .from(deploymentBatches)
        .where(
          and(
            inArray(deploymentBatches.paymentStatus, ["pending", "sending"]),
            lt(deploymentBatches.updatedAt, before),
          ),
        )
        .all();
      const wallets = db
        .select()
        .from(deploymentWallets)
        .where(
          and(
            or(
              inArray(deploymentWallets.deploymentStatus, ["sending", "sent"]),
              inArray(deploymentWallets.fundingStatus, ["sending", "sent"]),
            ),
            lt(deploymentWallets.updatedAt, before),
          ),
        )
        .all();
      return { batches, wallets };
    },

    unleaseAll(before) {
      const time = new Date().toISOString();
      db.update(deploymentWallets)
        .set({ deploymentStatus: "pending", updatedAt: time })
        .where(and(eq(deploymentWallets.deploymentStatus, "sending"), lt(deploymentWallets.updatedAt, before)))
        .run();
      db.update(deploymentWallets)
        .set({ fundingStatus: "pending", updatedAt: time })
        .where(and(eq(deploymentWallets.fundingStatus, "sending"), lt(deploymentWallets.updatedAt, before)))
        .run();
    },
  };
}
