import type { DeploymentBatch } from "../db/schema";
import { ApiError, PaymentPendingError, type StoredApiError, withPaymentId } from "../errors";
import { advanceBatch } from "./batch-progress";
import type { DeployContext } from "./context";
import { feePaymentId } from "./fee-payment";
import { type DeploySettleResponse, settleOutcome, settleResponse } from "./responses";

type StoredResult = { response: DeploySettleResponse } | { error: StoredApiError };

/** The deployment context once start-up reconciliation is known: what the settle flows and claims use. */
export type SettlingContext = DeployContext & {
  /** Resolves when start-up reconciliation is done: batches are touched only after it. */
  ready: Promise<void>;
  /** `recorded`: the batch as the settle found or created it. */
  settleBatch(recorded: DeploymentBatch): Promise<DeploySettleResponse>;
};

/**
 * Settles a batch: payment, then deployments, then fundings, one caller per batch at a time and only after
 * `ready`; the first finished answer is stored and is every later answer.
 */
export function createBatchSettler(ctx: DeployContext, ready: Promise<void>) {
  return (recorded: DeploymentBatch): Promise<DeploySettleResponse> =>
    ctx.withLock(`batch:${recorded.id}`, async () => {
      await ready;
      const batchId = recorded.id;
      const runtime = ctx.networks.get(recorded.network);
      const paymentId = feePaymentId(runtime, recorded);
      const batch = await ctx.store.batch(batchId);
      // Dropped since it was looked up (start-up reconciliation discards a batch whose fee never left): the same
      // body settled again records it anew.
      if (!batch) {
        throw new PaymentPendingError(
          { paymentId, network: recorded.network, payer: recorded.payer },
          "this deployment was reset meanwhile; settle again",
        );
      }
      try {
        if (batch.result) return replay(JSON.parse(batch.result) as StoredResult, paymentId);
        await ctx.pay(batch);
        await advanceBatch(ctx.stepDeps(runtime), batch, runtime.config.receiptTimeoutMs);
        const rows = await ctx.store.walletsOf(batchId);
        const paid = (await ctx.store.batch(batchId)) as DeploymentBatch;
        const response = settleResponse(paid, rows, paymentId);
        const outcome = settleOutcome(response, rows);
        if (outcome.ok) {
          await ctx.store.saveResult(batchId, { response });
          return response;
        }
        // An unconfirmed step is no outcome yet: answered, not stored, so a later settle reports the real one.
        if (outcome.final) await ctx.store.saveResult(batchId, { error: outcome.error.toStored() });
        throw outcome.error;
      } catch (error) {
        throw asDeploymentAnswer(error, batch, paymentId);
      }
    });
}

/** Every answer names the deployment's payment; one still in flight is the 202 pending answer. */
function asDeploymentAnswer(error: unknown, batch: DeploymentBatch, paymentId: string): unknown {
  if (!(error instanceof ApiError) || error.details?.status !== "pending") return withPaymentId(error, paymentId);
  const transaction = (error.details.paymentTxHash as string | null | undefined) ?? batch.paymentTxHash;
  return new PaymentPendingError({ paymentId, network: batch.network, payer: batch.payer, transaction }, error.message);
}

function replay(stored: StoredResult, paymentId: string): DeploySettleResponse {
  if ("response" in stored) return { ...stored.response, paymentId };
  throw ApiError.fromStored(stored.error);
}
