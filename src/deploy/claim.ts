import type { Static } from "elysia";
import type { DeploymentBatch } from "../db/schema";
import { ApiError } from "../http/errors";
import { shortReason } from "../logger";
import { type Attempts, advanceBatch, hasPendingWork } from "./batch-progress";
import type { DeployContext } from "./context";
import { feeWasSent } from "./fee-payment";
import type { ClaimBodySchema } from "./schemas";

type ClaimBody = Static<typeof ClaimBodySchema>;

/** A batch a claim may touch: its fee is paid (or was sent and awaits its outcome) and something is left. */
function claimable(ctx: DeployContext, batch: DeploymentBatch): boolean {
  if (batch.paymentStatus === "sending") return batch.flow === "wallet" || feeWasSent(ctx.feeDeps, batch);
  return batch.paymentStatus === "success" && hasPendingWork(ctx.store.walletsOf(batch.id));
}

/**
 * /wallet/claim: retries what is pending in paid batches, never paying again. Claims with the same scope
 * share one run; overlapping claims meet at the per-batch lock and the leases, so each wallet is retried once.
 */
export function claimDeployments(ctx: DeployContext, body: ClaimBody) {
  if (!body.paymentTxHash && !body.payerAddress) {
    throw new ApiError("validation_error", "paymentTxHash or payerAddress is required", { field: "paymentTxHash" });
  }
  if (body.network) ctx.networks.get(body.network);
  const scope = {
    paymentTxHash: body.paymentTxHash?.toLowerCase(),
    payer: body.payerAddress?.toLowerCase(),
    network: body.network,
  };
  return ctx.once(`claim:${JSON.stringify(scope)}`, async () => {
    await ctx.ready;
    const batches = ctx.store.batchesFor(scope).filter((batch) => claimable(ctx, batch));
    if (batches.length === 0) throw new ApiError("not_found", "no pending deployments for these parameters");
    const networks = [...new Set(batches.map((batch) => batch.network))];
    if (networks.length > 1) {
      throw new ApiError(
        "validation_error",
        `pending deployments exist on ${networks.join(" and ")}; pass network to choose one`,
        { field: "network" },
      );
    }
    const attempts: Attempts = { deployments: { successful: [], failed: [] }, funding: { successful: [], failed: [] } };
    let unconfirmedPayments = 0;
    for (const { id } of batches) {
      await ctx.withLock(`batch:${id}`, async () => {
        let batch = ctx.store.batch(id) as DeploymentBatch;
        if (batch.paymentStatus === "sending") {
          try {
            await ctx.pay(batch);
          } catch (error) {
            unconfirmedPayments++;
            ctx.logger.warn({ event: "claim_payment_unresolved", batchId: id, reason: shortReason(error) });
            return;
          }
          batch = ctx.store.batch(id) as DeploymentBatch;
        }
        if (batch.paymentStatus !== "success" || !hasPendingWork(ctx.store.walletsOf(id))) return;
        const runtime = ctx.networks.get(batch.network);
        const result = await advanceBatch(ctx.stepDeps(runtime), batch, runtime.config.receiptTimeoutMs);
        attempts.deployments.successful.push(...result.deployments.successful);
        attempts.deployments.failed.push(...result.deployments.failed);
        attempts.funding.successful.push(...result.funding.successful);
        attempts.funding.failed.push(...result.funding.failed);
      });
    }
    const successes = attempts.deployments.successful.length + attempts.funding.successful.length;
    const failures = attempts.deployments.failed.length + attempts.funding.failed.length;
    if (successes + failures === 0) {
      if (unconfirmedPayments > 0)
        throw new ApiError("blockchain_error", "the fee payment is not confirmed yet; claim again later", {
          status: "pending",
        });
      throw new ApiError("not_found", "no pending deployments for these parameters (another claim completed them)");
    }
    const response = {
      success: failures === 0 && unconfirmedPayments === 0,
      ...attempts,
      network: networks[0] as string,
    };
    if (successes === 0)
      throw new ApiError("deployment_error", "every retry failed; the payment stays valid, claim again later", {
        ...response,
      });
    return response;
  });
}
