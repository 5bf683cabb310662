import type { DeploymentBatch } from "../db/schema";
import { ApiError, type StoredApiError } from "../errors";
import { advanceBatch } from "./batch-progress";
import type { DeployContext } from "./context";
import { type DeploySettleResponse, settleOutcome, settleResponse } from "./responses";

type StoredResult = { response: DeploySettleResponse } | { error: StoredApiError };

/** The deployment context once start-up reconciliation is known: what the settle flows and claims use. */
export type SettlingContext = DeployContext & {
  /** Resolves when start-up reconciliation is done: batches are touched only after it. */
  ready: Promise<void>;
  settleBatch(batchId: number): Promise<DeploySettleResponse>;
};

/**
 * Settles a batch: payment, then deployments, then fundings, one caller per batch at a time and only after
 * `ready`; the first finished answer is stored and is every later answer.
 */
export function createBatchSettler(ctx: DeployContext, ready: Promise<void>) {
  return (batchId: number): Promise<DeploySettleResponse> =>
    ctx.withLock(`batch:${batchId}`, async () => {
      await ready;
      const batch = await ctx.store.batch(batchId);
      // Dropped since it was looked up (start-up reconciliation discards a batch whose fee never left).
      if (!batch) {
        throw new ApiError("blockchain_error", "this deployment was reset meanwhile; settle again", {
          status: "pending",
        });
      }
      if (batch.result) return replay(JSON.parse(batch.result) as StoredResult);
      await ctx.pay(batch);
      const runtime = ctx.networks.get(batch.network);
      await advanceBatch(ctx.stepDeps(runtime), batch, runtime.config.receiptTimeoutMs);
      const rows = await ctx.store.walletsOf(batchId);
      const response = settleResponse((await ctx.store.batch(batchId)) as DeploymentBatch, rows);
      const outcome = settleOutcome(response, rows);
      if (outcome.ok) {
        await ctx.store.saveResult(batchId, { response });
        return response;
      }
      // An unconfirmed step is no outcome yet: answered, not stored, so a later settle reports the real one.
      if (outcome.final) await ctx.store.saveResult(batchId, { error: outcome.error.toStored() });
      throw outcome.error;
    });
}

function replay(stored: StoredResult): DeploySettleResponse {
  if ("response" in stored) return stored.response;
  throw ApiError.fromStored(stored.error);
}
