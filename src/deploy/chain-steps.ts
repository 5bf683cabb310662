import { factoryAbi, relayerAbi } from "@relay402/client/wire/abis";
import {
  type Address,
  encodeFunctionData,
  type Hex,
  isAddressEqual,
  multicall3Abi,
  parseEventLogs,
  type TransactionReceipt,
} from "viem";
import { MULTICALL3 } from "../chain/addresses";
import { resumeSend, type SendOutcome, sendDurably } from "../chain/durable-send";
import { minedFigures } from "../chain/mined-figures";
import type { NetworkRuntime } from "../chain/networks";
import { relayerOf, smartWalletOf } from "../config/capabilities";
import type { DeploymentWallet } from "../db/schema";
import { type Logger, shortReason } from "../logger";
import { type Authorization, authorizationFromJson } from "../settlement/authorization";
import type { PaymentRules } from "../settlement/payment-rules";
import { isSameUse, type RelayerPort } from "../settlement/relayer-port";
import { verifyPayment } from "../settlement/verify-payment";
import { deployedAddresses } from "./addresses";
import type { AsyncDeploymentStore, Phase } from "./deployment-store";

/** Gas per factory call through Multicall3 (createAccount measures ~96k) and the multicall's own overhead. */
const CREATE_ACCOUNT_GAS = 160_000n;
const MULTICALL_OVERHEAD_GAS = 60_000n;

export type StepOutcome = {
  walletAddress: string;
  ok: boolean;
  txHash: string | null;
  reason?: string;
  /** False when another request or instance had concluded this row first: its outcome, not this one, counts. */
  concluded?: boolean;
};

export type StepDeps = {
  store: AsyncDeploymentStore;
  network: NetworkRuntime;
  relayer: RelayerPort;
  rules: PaymentRules;
  now: () => bigint;
  logger: Logger;
};

const authorizationOf = (row: DeploymentWallet): Authorization => {
  if (!row.fundingAuthorization) throw new Error(`wallet ${row.walletAddress} has no funding authorization`);
  return authorizationFromJson(row.fundingAuthorization);
};

const aggregate = (calls: { target: Address; callData: Hex }[]) =>
  encodeFunctionData({
    abi: multicall3Abi,
    functionName: "aggregate3",
    args: [calls.map((call) => ({ ...call, allowFailure: true }))],
  });

/** A step's per-wallet verdict: done, failed (a claim retries it) or abandoned (never retried, the reason says why). */
type Verdict = { status: "success" | "failed" | "abandoned"; txHash?: string; reason?: string };

const NONCE_TAKEN = "nonce used by a different authorization";

/**
 * What a funding's authorization became on-chain, from the relayer's AuthorizationUsed events: paid by this
 * exact authorization (whoever submitted it), used by a different one, or not used.
 */
async function fundingOnChain(
  deps: StepDeps,
  row: DeploymentWallet,
  receipt: TransactionReceipt | null,
): Promise<Verdict> {
  const authorization = authorizationOf(row);
  const inReceipt = receipt
    ? parseEventLogs({ abi: relayerAbi, logs: receipt.logs, eventName: "AuthorizationUsed" }).find(
        (log) =>
          isAddressEqual(log.address, relayerOf(deps.network, "deployments")) &&
          isAddressEqual(log.args.authorizer, authorization.from) &&
          log.args.nonce.toLowerCase() === authorization.nonce.toLowerCase(),
      )
    : undefined;
  const use = inReceipt
    ? { ...inReceipt.args, transactionHash: inReceipt.transactionHash }
    : await deps.relayer.findAuthorizationUse(
        authorization.from,
        authorization.nonce,
        receipt?.blockNumber ?? (await deps.network.client.getBlockNumber()),
      );
  if (use && isSameUse(use, authorization)) return { status: "success", txHash: use.transactionHash };
  if (use) return { status: "abandoned", reason: NONCE_TAKEN };
  if (await deps.relayer.authorizationState(authorization.from, authorization.nonce)) {
    return { status: "abandoned", reason: "funding authorization canceled by the payer" };
  }
  return {
    status: "failed",
    reason: receipt?.status === "reverted" ? "transaction reverted" : "funding transfer failed",
  };
}

/** Per-wallet truth after a step's transaction (or once its nonce went elsewhere): the chain decides. */
async function record(
  deps: StepDeps,
  phase: Phase,
  rows: DeploymentWallet[],
  receipt: TransactionReceipt | null,
  txHash: string | null,
): Promise<StepOutcome[]> {
  let verdicts: Verdict[];
  if (phase === "deployment") {
    const deployed = await deployedAddresses(
      deps.network.client,
      rows.map((row) => row.walletAddress as Address),
    );
    const failure = receipt?.status === "reverted" ? "transaction reverted" : "factory call failed";
    verdicts = rows.map((row) =>
      deployed.has(row.walletAddress) ? { status: "success" } : { status: "failed", reason: failure },
    );
  } else {
    verdicts = await Promise.all(rows.map((row) => fundingOnChain(deps, row, receipt)));
  }
  const mined = receipt ? minedFigures(receipt) : undefined;
  return Promise.all(
    rows.map(async (row, i) => {
      const verdict = verdicts[i] as Verdict;
      const ok = verdict.status === "success";
      const rowTx = verdict.txHash ?? txHash;
      const concluded = await deps.store.markOutcome(phase, row.id, {
        status: verdict.status,
        txHash: rowTx,
        error: verdict.reason ?? null,
        // Our receipt's figures only go with our own transaction (a funding may have been executed by another).
        ...(mined && rowTx?.toLowerCase() === receipt?.transactionHash.toLowerCase() && { mined }),
      });
      return { walletAddress: row.walletAddress, ok, txHash: rowTx, reason: verdict.reason, concluded };
    }),
  );
}

/** Maps what the durable sender reports for a step's transaction to its rows. */
async function conclude(
  deps: StepDeps,
  phase: Phase,
  rows: DeploymentWallet[],
  outcome: SendOutcome,
): Promise<StepOutcome[]> {
  const ids = rows.map((row) => row.id);
  const all = (txHash: string | null, reason: string) =>
    rows.map((row) => ({ walletAddress: row.walletAddress, ok: false, txHash, reason }));
  switch (outcome.status) {
    case "mined":
      return record(deps, phase, rows, outcome.receipt, outcome.receipt.transactionHash);
    case "superseded":
      return record(deps, phase, rows, null, outcome.hash);
    case "would_revert":
    case "not_sent": {
      const reason = `could not send the transaction: ${outcome.reason}`;
      for (const row of rows) await deps.store.markOutcome(phase, row.id, { status: "failed", error: reason });
      return all(null, reason);
    }
    case "refused": {
      // The node refused it, so it can never be mined: the rows are retryable by a claim, with a new transaction.
      const reason = `the node refused the transaction (${outcome.reason}); claim again later`;
      deps.logger.warn({ event: "deployment_step_refused", phase, network: deps.network.name, reason: outcome.reason });
      await deps.store.markRefused(phase, ids, reason);
      return all(null, reason);
    }
    case "unconfirmed":
      deps.logger.warn({
        event: "deployment_step_unconfirmed",
        phase,
        network: deps.network.name,
        transaction: outcome.hash,
        reason: outcome.reason,
      });
      return all(outcome.hash, `transaction ${outcome.hash} not confirmed yet (${outcome.reason}); claim again later`);
  }
}

/** One transaction for every leased wallet of a step, sent through the one durable sender. */
async function sendStep(
  deps: StepDeps,
  phase: Phase,
  rows: DeploymentWallet[],
  request: { to: Address; data: Hex; gas: bigint },
): Promise<StepOutcome[]> {
  const ids = rows.map((row) => row.id);
  const outcome = await sendDurably(
    deps.network,
    request,
    {
      signed: (hash, raw) => deps.store.markSent(phase, ids, hash, raw),
      replaced: (hash) => deps.store.markReplaced(phase, ids, hash),
    },
    { simulate: true },
  );
  return conclude(deps, phase, rows, outcome);
}

/** Deploys the given wallets (already leased) with one Multicall3 transaction of factory calls. */
export function deployWallets(deps: StepDeps, rows: DeploymentWallet[]): Promise<StepOutcome[]> {
  const { factory } = smartWalletOf(deps.network, "deployments");
  const data = aggregate(
    rows.map((row) => ({
      target: factory,
      callData: encodeFunctionData({
        abi: factoryAbi,
        functionName: "createAccount",
        args: [row.owner as Address, row.salt as Hex],
      }),
    })),
  );
  return sendStep(deps, "deployment", rows, {
    to: MULTICALL3,
    data,
    gas: MULTICALL_OVERHEAD_GAS + CREATE_ACCOUNT_GAS * BigInt(rows.length),
  });
}

/**
 * Funds the given deployed wallets (already leased): each authorization is re-checked first (a payload that
 * can no longer pay fails here, without gas), the rest go in one Multicall3 transaction to the relayer.
 */
export async function fundWallets(deps: StepDeps, rows: DeploymentWallet[]): Promise<StepOutcome[]> {
  const relayer = relayerOf(deps.network, "deployments");
  const checks = await Promise.all(
    rows.map((row) =>
      verifyPayment(
        { relayer: deps.relayer, relayerAddress: relayer, now: deps.now, rules: deps.rules },
        authorizationOf(row),
        relayer,
      ).catch((error) => ({
        isValid: false as const,
        invalidMessage: shortReason(error),
      })),
    ),
  );
  const outcomes: StepOutcome[] = [];
  const payable: DeploymentWallet[] = [];
  const used: DeploymentWallet[] = [];
  for (const [i, row] of rows.entries()) {
    const check = checks[i];
    if (check?.isValid) {
      payable.push(row);
      continue;
    }
    if (check && !check.isValid && "invalidReason" in check && check.invalidReason === "nonce_error") {
      used.push(row); // someone used the nonce: the chain tells whether it was this funding
      continue;
    }
    const reason = `funding payload no longer valid: ${check && !check.isValid ? check.invalidMessage : "unknown"}`;
    await deps.store.markOutcome("funding", row.id, { status: "failed", error: reason });
    outcomes.push({ walletAddress: row.walletAddress, ok: false, txHash: null, reason });
  }
  if (used.length > 0) outcomes.push(...(await record(deps, "funding", used, null, null)));
  if (payable.length === 0) return outcomes;
  const data = aggregate(
    payable.map((row) => ({ target: relayer, callData: deps.relayer.transferCallData(authorizationOf(row)) })),
  );
  const gas = MULTICALL_OVERHEAD_GAS + BigInt(deps.network.config.settleGasLimit) * BigInt(payable.length);
  return [...outcomes, ...(await sendStep(deps, "funding", payable, { to: MULTICALL3, data, gas }))];
}

/** Rows left `sent` (by a crash or a timeout): resumed through the durable sender, one transaction at a time. */
export async function resolveSent(
  deps: StepDeps,
  phase: Phase,
  rows: DeploymentWallet[],
  waitMs: number,
): Promise<StepOutcome[]> {
  const byTx = Map.groupBy(rows, (row) => (phase === "deployment" ? row.deploymentTxHash : row.fundingTxHash) ?? "");
  const outcomes: StepOutcome[] = [];
  for (const [txHash, group] of byTx) {
    const rawTx = (phase === "deployment" ? group[0]?.deploymentRawTx : group[0]?.fundingRawTx) ?? null;
    const outcome = await resumeSend(deps.network, { txHash: txHash || null, rawTx }, waitMs);
    outcomes.push(...(await conclude(deps, phase, group, outcome)));
  }
  return outcomes;
}
