import { getAddress } from "viem";
import type { DeploymentBatch, DeploymentWallet } from "../db/schema";
import { fundWallets, resolveSent, type StepDeps, type StepOutcome } from "./chain-steps";
import { deploySimulated } from "./simulate-deployments";

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

  const now = Number(deps.now());
  let rows = await deps.store.walletsOf(batch.id);
  const counted = (outcomes: StepOutcome[]) => countFailedAttempts(deps, rows, outcomes, now);
  report(
    "deployments",
    await counted(
      await resolveSent(
        deps,
        "deployment",
        rows.filter((row) => row.deploymentStatus === "sent"),
        waitMs,
      ),
    ),
  );
  const toDeploy = await leased(
    deps,
    "deployment",
    rows.filter((row) => RETRYABLE.has(row.deploymentStatus)),
    now,
  );
  if (toDeploy.length > 0) report("deployments", await counted(await deploySimulated(deps, toDeploy)));

  rows = await deps.store.walletsOf(batch.id);
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
  const toFund = await leased(
    deps,
    "funding",
    fundable.filter((row) => RETRYABLE.has(row.fundingStatus)),
    now,
  );
  if (toFund.length > 0) report("funding", await fundWallets(deps, toFund));
  // Only for deployments tried now: a skipped one (abandoned, or waiting for its retry) is reported by the caller.
  const triedAndFailed = new Set(attempts.deployments.failed.map((failure) => failure.address.toLowerCase()));
  for (const row of rows) {
    if (row.fundingRequested && row.fundingStatus !== "success" && triedAndFailed.has(row.walletAddress)) {
      attempts.funding.failed.push({
        address: getAddress(row.walletAddress),
        reason: "wallet not deployed yet; funding follows its deployment",
      });
    }
  }
  return attempts;
}

async function leased(
  deps: StepDeps,
  phase: "deployment" | "funding",
  rows: DeploymentWallet[],
  nowSeconds: number,
): Promise<DeploymentWallet[]> {
  const ids = new Set(
    await deps.store.lease(
      phase,
      rows.map((row) => row.id),
      nowSeconds,
    ),
  );
  return rows.filter((row) => ids.has(row.id));
}

/**
 * A failed outcome with a transaction hash whose row is now `failed` is a deployment transaction that was mined
 * without deploying the wallet (simulation passed, the chain disagreed): it spent gas, so it counts towards the
 * network's cap. Failures that sent nothing (simulation, refused or unprepared transactions) do not count.
 */
function countFailedAttempts(
  deps: StepDeps,
  rows: DeploymentWallet[],
  outcomes: StepOutcome[],
  nowSeconds: number,
): Promise<StepOutcome[]> {
  const policy = {
    maxAttempts: deps.network.config.deployMaxAttempts,
    backoffSeconds: deps.network.config.deployRetryBackoffSeconds,
  };
  return Promise.all(
    outcomes.map(async (outcome) => {
      const row = rows.find((candidate) => candidate.walletAddress === outcome.walletAddress.toLowerCase());
      // Counted once per transaction: by whoever concluded the row (another instance may resolve it too).
      if (outcome.ok || !outcome.txHash || !row || outcome.concluded === false) return outcome;
      const counted = await deps.store.countFailedAttempt(row.id, policy, nowSeconds);
      if (counted.abandoned) {
        deps.logger.warn({
          event: "deployment_abandoned",
          network: deps.network.name,
          wallet: row.walletAddress,
          reason: counted.reason,
        });
      }
      return counted.abandoned ? { ...outcome, reason: counted.reason ?? "abandoned" } : outcome;
    }),
  );
}
