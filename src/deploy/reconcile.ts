import { shortReason } from "../logger";

import { resolveSent } from "./chain-steps";
import type { DeployContext } from "./context";
import { feeWasSent } from "./fee-payment";

/**
 * At start, settles what a previous process left open so the records tell what happened on-chain:
 * a batch whose fee never left is dropped (nothing happened), a fee that was sent is resolved; a step
 * leased but never sent goes back to pending; a step sent is resolved from its receipt or the chain.
 * What is still to do is left to /wallet/claim.
 */
export async function reconcileDeployments(ctx: DeployContext, startedAt: string): Promise<void> {
  const { batches, wallets } = await ctx.store.unfinished(startedAt);
  for (const batch of batches) {
    try {
      const neverSent =
        batch.paymentStatus === "pending" || (batch.flow === "eoa" && !(await feeWasSent(ctx.feeDeps, batch)));
      if (neverSent) {
        await ctx.store.discard(batch.id);
        ctx.logger.info({ event: "deployment_discarded", batchId: batch.id, reason: "fee never sent" });
        continue;
      }
      await ctx.pay(batch);
    } catch (error) {
      ctx.logger.warn({ event: "deployment_payment_unresolved", batchId: batch.id, reason: shortReason(error) });
    }
  }
  await ctx.store.unleaseAll(startedAt);
  const sent = (phase: "deployment" | "funding") =>
    wallets.filter((row) => (phase === "deployment" ? row.deploymentStatus : row.fundingStatus) === "sent");
  for (const phase of ["deployment", "funding"] as const) {
    for (const [network, rows] of Map.groupBy(sent(phase), (row) => row.network)) {
      try {
        const runtime = ctx.networks.get(network);
        await resolveSent(ctx.stepDeps(runtime), phase, rows, runtime.config.receiptTimeoutMs);
      } catch (error) {
        ctx.logger.warn({ event: "deployment_step_unresolved", network, phase, reason: shortReason(error) });
      }
    }
  }
}
