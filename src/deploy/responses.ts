import type { DeploySettleResponseSchema, WalletInfoSchema } from "@relay402/client/wire/deploy-schemas";
import type { Static } from "@sinclair/typebox";
import { getAddress } from "viem";
import type { DeploymentBatch, DeploymentWallet } from "../db/schema";
import { ApiError } from "../errors";

export type DeploySettleResponse = Static<typeof DeploySettleResponseSchema>;

const funded = (row: DeploymentWallet) => row.fundingStatus === "success";
const deployed = (row: DeploymentWallet) => row.deploymentStatus === "success";

export function settleResponse(
  batch: DeploymentBatch,
  rows: DeploymentWallet[],
  paymentId: string,
): DeploySettleResponse {
  return {
    paymentId,
    paymentSuccess: batch.paymentStatus === "success",
    deploymentSuccess: rows.every(deployed),
    fundingSuccess: rows.filter((row) => row.fundingRequested).every(funded),
    wallets: rows.map((row) => ({
      address: getAddress(row.walletAddress),
      deploymentTxHash: row.deploymentTxHash,
      fundingTxHash: row.fundingRequested ? row.fundingTxHash : null,
      fundingCompleted: funded(row),
    })),
    failedWallets: rows.filter((row) => !deployed(row)).map((row) => getAddress(row.walletAddress)),
    failedFundings: rows
      .filter((row) => row.fundingRequested && !funded(row))
      .map((row) => getAddress(row.walletAddress)),
    paymentTxHash: batch.paymentTxHash,
    deploymentFee: batch.deploymentFee,
  };
}

/**
 * A paid batch answers 200 with its partial result, except when a whole step failed: no wallet deployed is
 * `deployment_error`, every wallet deployed but no requested funding made is `funding_error`. Both carry the
 * full settle response in `details` (payment is never reversed; claim finishes the rest). A step that has no
 * outcome yet has not failed: its transaction unconfirmed (sent, no receipt yet), or not attempted yet because another
 * request or instance holds the batch and has not reached it (a loser of concurrent settles reads the rows between the
 * winner's deployment and its funding). That answer is a retryable pending `blockchain_error`, to be replaced by the
 * real outcome on a later settle (`final` false: not to be stored); the batch settler answers it 202 under the
 * deployment's payment id (settle-batch.ts).
 */
const NO_OUTCOME_YET = new Set(["pending", "sending", "sent"]);

export function settleOutcome(
  response: DeploySettleResponse,
  rows: DeploymentWallet[],
): { ok: true; response: DeploySettleResponse } | { ok: false; error: ApiError; final: boolean } {
  // Not attempted yet, leased by another request or instance that is sending it now, or sent without a receipt.
  const unconfirmed = (phase: "deployment" | "funding") =>
    rows.some((row) => NO_OUTCOME_YET.has(phase === "deployment" ? row.deploymentStatus : row.fundingStatus));
  const stillPending = (message: string) => ({
    ok: false as const,
    final: false,
    error: new ApiError("blockchain_error", message, { ...response, status: "pending" }),
  });
  if (response.failedWallets.length === response.wallets.length) {
    if (unconfirmed("deployment"))
      return stillPending("the fee was paid and the deployment transaction is not confirmed yet; settle again later");
    const abandoned = rows.find((row) => row.deploymentStatus === "abandoned");
    const message = rows.every((row) => row.deploymentStatus === "abandoned")
      ? `the fee was paid but no wallet can be deployed (${abandoned?.deploymentError}); they will not be retried`
      : "the fee was paid but no wallet could be deployed; use /wallet/claim to retry";
    return { ok: false, final: true, error: new ApiError("deployment_error", message, { ...response }) };
  }
  const fundedCount = response.wallets.filter((wallet) => wallet.fundingCompleted).length;
  if (response.failedWallets.length === 0 && response.failedFundings.length > 0 && fundedCount === 0) {
    if (unconfirmed("funding"))
      return stillPending(
        "the wallets are deployed and the funding transaction is not confirmed yet; settle again later",
      );
    return {
      final: true,
      ok: false,
      error: new ApiError(
        "funding_error",
        "the wallets are deployed but no funding transfer succeeded; use /wallet/claim to retry",
        { ...response },
      ),
    };
  }
  return { ok: true, response };
}

export type WalletInfo = Static<typeof WalletInfoSchema>;

export function walletInfo(batch: DeploymentBatch, row: DeploymentWallet): WalletInfo {
  return {
    ownerAddress: getAddress(row.owner),
    walletAddress: getAddress(row.walletAddress),
    salt: row.salt,
    payerAddress: getAddress(batch.payer),
    paymentTxHash: batch.paymentTxHash,
    deploymentTxHash: row.deploymentTxHash,
    paymentCompleted: batch.paymentStatus === "success",
    deploymentCompleted: deployed(row),
    fundingRequested: row.fundingRequested,
    fundingCompleted: funded(row),
    fundingAmount: row.fundingAmount,
    // Null if not funded: a sent transaction may still fail or be replaced.
    fundingTxHash: funded(row) ? row.fundingTxHash : null,
    createdAt: row.createdAt,
    // ISO timestamps sort as text; the batch holds the payment, the row its own steps.
    updatedAt: [row.updatedAt, batch.updatedAt].sort().at(-1) as string,
    network: row.network,
  };
}
