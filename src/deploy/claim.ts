import type { ClaimBodySchema } from "@relay402/client/wire/deploy-schemas";
import type { Static } from "@sinclair/typebox";
import { getAddress } from "viem";
import type { DeploymentBatch, DeploymentWallet } from "../db/schema";
import { ApiError } from "../errors";
import { shortReason } from "../logger";
import { type Attempts, advanceBatch, hasPendingWork } from "./batch-progress";
import type { DeployContext } from "./context";
import { feeWasSent } from "./fee-payment";
import type { SettlingContext } from "./settle-batch";

type ClaimBody = Static<typeof ClaimBodySchema>;

/** A batch a claim may touch: its fee is paid (or was sent and awaits its outcome) and something is left. */
async function claimable(ctx: DeployContext, batch: DeploymentBatch): Promise<boolean> {
  if (batch.paymentStatus === "sending") return batch.flow === "wallet" || (await feeWasSent(ctx.feeDeps, batch));
  return batch.paymentStatus === "success" && hasPendingWork(await ctx.store.walletsOf(batch.id));
}

/**
 * /wallet/claim: retries what is pending in paid batches, never paying again. Claims with the same scope
 * share one run; overlapping claims meet at the per-batch lock and the leases, so each wallet is retried once.
 */
export function claimDeployments(ctx: SettlingContext, body: ClaimBody) {
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
    const inScope = await ctx.store.batchesFor(scope);
    const verdicts = await Promise.all(inScope.map((batch) => claimable(ctx, batch)));
    const batches = inScope.filter((_, i) => verdicts[i]);
    if (batches.length === 0) throw await nothingPending(ctx, inScope, "no pending deployments for these parameters");
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
    const skipped = { abandoned: [] as Failure[], waiting: [] as Failure[], retryAfter: Number.POSITIVE_INFINITY };
    for (const { id } of batches) {
      await ctx.withLock(`batch:${id}`, async () => {
        let batch = (await ctx.store.batch(id)) as DeploymentBatch;
        if (batch.paymentStatus === "sending") {
          try {
            await ctx.pay(batch);
          } catch (error) {
            unconfirmedPayments++;
            ctx.logger.warn({ event: "claim_payment_unresolved", batchId: id, reason: shortReason(error) });
            return;
          }
          batch = (await ctx.store.batch(id)) as DeploymentBatch;
        }
        const rows = await ctx.store.walletsOf(id);
        if (batch.paymentStatus !== "success" || !hasPendingWork(rows)) return;
        const runtime = ctx.networks.get(batch.network);
        noteSkipped(skipped, rows, Number(ctx.now()));
        const result = await advanceBatch(ctx.stepDeps(runtime), batch, runtime.config.receiptTimeoutMs);
        attempts.deployments.successful.push(...result.deployments.successful);
        attempts.deployments.failed.push(...result.deployments.failed);
        attempts.funding.successful.push(...result.funding.successful);
        attempts.funding.failed.push(...result.funding.failed);
      });
    }
    const successes = attempts.deployments.successful.length + attempts.funding.successful.length;
    const failures = attempts.deployments.failed.length + attempts.funding.failed.length;
    const network = networks[0] as string;
    const withSkipped = (failed: Failure[]) => [...failed, ...skipped.abandoned, ...skipped.waiting];
    const response = {
      success: failures === 0 && unconfirmedPayments === 0 && skipped.abandoned.length + skipped.waiting.length === 0,
      deployments: { successful: attempts.deployments.successful, failed: withSkipped(attempts.deployments.failed) },
      funding: attempts.funding,
      network,
    };
    if (successes + failures === 0) {
      if (unconfirmedPayments > 0)
        throw new ApiError("blockchain_error", "the fee payment is not confirmed yet; claim again later", {
          status: "pending",
        });
      if (skipped.waiting.length > 0) {
        const retryAfter = new Date(skipped.retryAfter * 1000).toISOString();
        throw new ApiError(
          "blockchain_error",
          `the next deployment attempt is not due yet; claim again after ${retryAfter}`,
          {
            status: "pending",
            retryAfter,
            ...response,
          },
        );
      }
      throw await nothingPending(
        ctx,
        inScope,
        "no pending deployments for these parameters (another claim completed them)",
      );
    }
    if (successes === 0) {
      const rowsOf = await Promise.all(batches.map((batch) => ctx.store.walletsOf(batch.id)));
      const retryable = rowsOf.some((rows) => hasPendingWork(rows));
      const message = retryable
        ? "every retry failed; the payment stays valid, claim again later"
        : "every retry failed and nothing is left to retry: the failed wallets will not be deployed";
      throw new ApiError("deployment_error", message, { ...response });
    }
    return response;
  });
}

type Failure = { address: string; reason: string };

/**
 * Deployments a claim does not send now: abandoned ones (never again, the stored reason says why) and ones
 * whose last attempt failed less than their backoff ago (reported as not retried yet, with the time).
 */
function noteSkipped(
  skipped: { abandoned: Failure[]; waiting: Failure[]; retryAfter: number },
  rows: DeploymentWallet[],
  nowSeconds: number,
) {
  for (const row of rows) {
    const address = getAddress(row.walletAddress);
    if (row.deploymentStatus === "abandoned") {
      skipped.abandoned.push({ address, reason: `not retried: ${row.deploymentError ?? "abandoned"}` });
    } else if (row.deploymentStatus === "failed" && (row.deploymentRetryAfter ?? 0) > nowSeconds) {
      const at = row.deploymentRetryAfter as number;
      skipped.retryAfter = Math.min(skipped.retryAfter, at);
      skipped.waiting.push({
        address,
        reason: `not retried yet: ${row.deploymentError ?? "failed"}; next attempt after ${new Date(at * 1000).toISOString()}`,
      });
    }
  }
}

/** The 404 of a claim with nothing to send; wallets that will never be deployed are listed with their reason. */
async function nothingPending(ctx: DeployContext, batches: DeploymentBatch[], message: string): Promise<ApiError> {
  const paid = batches.filter((batch) => batch.paymentStatus === "success");
  const failedWallets = (await Promise.all(paid.map((batch) => ctx.store.walletsOf(batch.id))))
    .flat()
    .filter((row) => row.deploymentStatus === "abandoned")
    .map((row) => ({ address: getAddress(row.walletAddress), reason: row.deploymentError ?? "abandoned" }));
  return new ApiError("not_found", message, failedWallets.length > 0 ? { failedWallets } : undefined);
}
