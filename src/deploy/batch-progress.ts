import { getAddress } from "viem";
import type { DeploymentBatch, DeploymentWallet } from "../db/schema";
import { deployWallets, fundWallets, resolveSent, type StepDeps, type StepOutcome } from "./chain-steps";

export type Attempts = {
  deployments: {
    successful: { address: string; deploymentTxHash: string }[];
    failed: { address: string; reason: string }[];
  };
  funding: { successful: { address: string; fundingTxHash: string }[]; failed: { address: string; reason: string }[] };
};

const RETRYABLE = new Set(["pending", "failed"]);

const DONE = new Set(["success", "abandoned"]);

/** True when a paid batch still has a wallet to deploy or a requested funding to make (abandoned steps are done). */
export const hasPendingWork = (rows: DeploymentWallet[]) =>
  rows.some(
    (row) =>
      !DONE.has(row.deploymentStatus) ||
      (row.fundingRequested && row.deploymentStatus !== "abandoned" && !DONE.has(row.fundingStatus)),
  );

/**
 * Moves a paid batch forward: deployments first (unknown outcomes resolved, the rest leased and sent as one
 * transaction), then fundings of the wallets that are deployed. Leases make each step run in one worker only.
 */
export async function advanceBatch(deps: StepDeps, batch: DeploymentBatch, waitMs: number): Promise<Attempts> {
  const attempts: Attempts = { deployments: { successful: [], failed: [] }, funding: { successful: [], failed: [] } };
  const report = (phase: "deployments" | "funding", outcomes: StepOutcome[]) => {
    for (const outcome of outcomes) {
      const address = getAddress(outcome.walletAddress);
      if (outcome.ok && phase === "deployments")
        attempts.deployments.successful.push({ address, deploymentTxHash: outcome.txHash ?? "" });
      else if (outcome.ok) attempts.funding.successful.push({ address, fundingTxHash: outcome.txHash ?? "" });
      else attempts[phase].failed.push({ address, reason: outcome.reason ?? "failed" });
    }
  };

  let rows = deps.store.walletsOf(batch.id);
  report(
    "deployments",
    await resolveSent(
      deps,
      "deployment",
      rows.filter((row) => row.deploymentStatus === "sent"),
      waitMs,
    ),
  );
  const toDeploy = leased(
    deps,
    "deployment",
    rows.filter((row) => RETRYABLE.has(row.deploymentStatus)),
  );
  if (toDeploy.length > 0) report("deployments", await deployWallets(deps, toDeploy));

  rows = deps.store.walletsOf(batch.id);
  const fundable = rows.filter(
    (row) => row.fundingRequested && row.fundingAuthorization && row.deploymentStatus === "success",
  );
  report(
    "funding",
    await resolveSent(
      deps,
      "funding",
      fundable.filter((row) => row.fundingStatus === "sent"),
      waitMs,
    ),
  );
  const toFund = leased(
    deps,
    "funding",
    fundable.filter((row) => RETRYABLE.has(row.fundingStatus)),
  );
  if (toFund.length > 0) report("funding", await fundWallets(deps, toFund));
  for (const row of rows) {
    if (row.fundingRequested && row.fundingStatus !== "success" && row.deploymentStatus !== "success") {
      attempts.funding.failed.push({
        address: getAddress(row.walletAddress),
        reason: "wallet not deployed yet; funding follows its deployment",
      });
    }
  }
  return attempts;
}

function leased(deps: StepDeps, phase: "deployment" | "funding", rows: DeploymentWallet[]): DeploymentWallet[] {
  const ids = new Set(
    deps.store.lease(
      phase,
      rows.map((row) => row.id),
    ),
  );
  return rows.filter((row) => ids.has(row.id));
}
