import type { RpcUserOp } from "@relay402/client/wire/user-operation";
import type { Address, Hex } from "viem";
import type { NetworkRuntime } from "../chain/networks";
import type { Async } from "../db/async-port";
import type { DeploymentBatch } from "../db/schema";
import type { DenyCounters } from "../deny/deny-counters";
import { ApiError, PaymentPendingError } from "../errors";
import { type Logger, shortReason } from "../logger";
import { type Authorization, authorizationFromJson } from "../settlement/authorization";
import { eoaPaymentId, type PaymentSettler } from "../settlement/settle-payment";
import type { SettlementStore } from "../settlement/settlement-store";
import type { AsyncIssuedUserOpStore } from "../userops/issued-user-op-store";
import { type UserOpOutcome, userOpFigures } from "../userops/outcome";
import { sendIssuedUserOp } from "../userops/submit-user-op";
import type { UserOpNetwork } from "../userops/user-op-network";
import { assertBalanceStillCovers } from "../userops/wallet-state";
import type { AsyncDeploymentStore } from "./deployment-store";

export type FeePaymentDeps = {
  store: AsyncDeploymentStore;
  settler: PaymentSettler;
  settlements: Async<SettlementStore>;
  issued: AsyncIssuedUserOpStore;
  logger: Logger;
  /** Counts sponsored fee UserOps that reverted against the paying wallet's owner. */
  deny: Pick<DenyCounters, "recordRevert">;
};

const feeAuthorizationOf = (batch: DeploymentBatch): Authorization =>
  authorizationFromJson(batch.feeAuthorization ?? "null");

/** A deployment's payment id: its EOA fee payment's (relayer, payer, nonce), or its fee UserOp's hash. */
export function feePaymentId(runtime: NetworkRuntime, batch: DeploymentBatch): Hex {
  if (batch.flow !== "eoa") return batch.userOpHash as Hex;
  const fee = feeAuthorizationOf(batch);
  return eoaPaymentId(runtime, fee.from, fee.nonce);
}

const pending = (message: string, details: Record<string, unknown>) =>
  new ApiError("blockchain_error", message, { ...details, status: "pending" });

/** The fee was not taken: the batch keeps its failure and frees its wallets for a new batch. */
async function paymentFailed(
  deps: FeePaymentDeps,
  batch: DeploymentBatch,
  error: ApiError,
  txHash: string | null,
): Promise<never> {
  await deps.store.failPayment(batch.id, {
    txHash: txHash?.toLowerCase() ?? null,
    error: error.message,
    result: { error: error.toStored() },
  });
  throw error;
}

/**
 * EOA flow: the fee goes through the idempotent EOA settler (its own record is written before the
 * transaction is signed), so calling this again for the same batch replays, never pays twice.
 */
export async function payFeeByAuthorization(
  deps: FeePaymentDeps,
  wallet: UserOpNetwork,
  batch: DeploymentBatch,
): Promise<void> {
  if (batch.paymentStatus === "success") return;
  await deps.store.setPayment(batch.id, { status: "sending" });
  try {
    const response = await deps.settler.settle(wallet.runtime, feeAuthorizationOf(batch), wallet.relayer);
    await deps.store.setPayment(batch.id, {
      status: "success",
      txHash: response.transaction.toLowerCase(),
      error: null,
    });
  } catch (error) {
    const apiError =
      error instanceof ApiError
        ? error
        : new ApiError("blockchain_error", "fee payment failed", { reason: shortReason(error) });
    const txHash = (apiError.details?.transaction as string | undefined) ?? null;
    if (apiError.code === "blockchain_error") {
      // Outcome unknown: the batch stays `sending`; a later settle, claim or restart resolves it.
      if (txHash) await deps.store.setPayment(batch.id, { status: "sending", txHash: txHash.toLowerCase() });
      // In flight is pending; a node that could not be read or refused the send is an error (5xx), retried later.
      if (apiError instanceof PaymentPendingError)
        throw pending(apiError.message, { paymentTxHash: txHash, reason: apiError.details?.reason });
      throw new ApiError("blockchain_error", apiError.message, {
        paymentTxHash: txHash,
        reason: apiError.details?.reason,
      });
    }
    await paymentFailed(deps, batch, apiError, txHash);
  }
}

/** Whether the EOA fee of a batch left `sending` by a crash ever reached the chain. */
export async function feeWasSent(deps: FeePaymentDeps, batch: DeploymentBatch): Promise<boolean> {
  const fee = feeAuthorizationOf(batch);
  const record = await deps.settlements.find({ network: batch.network, payer: fee.from, nonce: fee.nonce });
  return record !== undefined && record.status !== "pending" && record.status !== "failed";
}

/**
 * Smart-wallet flow: one UserOp pays the fee and every funding, sent through the kernel (the issued record is
 * claimed before it reaches the bundler; resuming looks for its execution, then re-sends the same UserOp, which
 * can execute at most once). Outcomes are read from the chain; the bundler's receipt only names the transaction.
 */
export async function payFeeByUserOp(
  deps: FeePaymentDeps,
  wallet: UserOpNetwork,
  batch: DeploymentBatch,
): Promise<void> {
  if (batch.paymentStatus === "success") return;
  const hash = batch.userOpHash as Hex;
  const op = JSON.parse(batch.signedUserOp ?? "null") as RpcUserOp;
  const record = await deps.issued.find(hash);
  if (record?.status === "failed") {
    return paymentFailed(deps, batch, ApiError.fromStored(JSON.parse(record.result ?? "null")), record.txHash);
  }
  if (!record || record.status === "issued") await assertPayerStillCovers(deps, wallet, batch, op);
  await deps.store.setPayment(batch.id, { status: "sending" });
  let outcome: UserOpOutcome;
  try {
    if (!record) throw new ApiError("userop_error", "the fee UserOp expired before it was sent", { userOpHash: hash });
    outcome = await sendIssuedUserOp(
      { store: deps.issued, deny: deps.deny },
      { network: wallet, hash, record },
      op.signature,
      (txHash) =>
        new ApiError("payment_settlement_error", "the fee UserOp reverted on-chain", {
          transaction: txHash,
          userOpHash: hash,
        }),
    );
  } catch (error) {
    // Pending (blockchain_error): the batch stays `sending`; a later settle, claim or restart resumes it.
    if (!(error instanceof ApiError) || error.code === "blockchain_error") throw error;
    return paymentFailed(deps, batch, error, (error.details?.transaction as string | undefined) ?? null);
  }
  const txHash = outcome.transactionHash.toLowerCase();
  // The fundings travelled in the same UserOp: recorded with the payment, in one transaction.
  await deps.store.paidWithFundings(batch.id, txHash);
  await deps.issued.finish(hash, {
    status: "success",
    txHash,
    result: { batchId: batch.id, txHash },
    mined: userOpFigures(outcome),
  });
}

/**
 * Before the first send: the paying wallet must still hold the fee and the fundings, or the paymaster pays for
 * a revert. A shortfall fails the batch (its wallets are freed) with 400 `validation_error` on `balance`.
 */
async function assertPayerStillCovers(
  deps: FeePaymentDeps,
  wallet: UserOpNetwork,
  batch: DeploymentBatch,
  op: RpcUserOp,
) {
  const fundings = (await deps.store.walletsOf(batch.id)).reduce(
    (sum, row) => sum + BigInt(row.fundingAmount ?? "0"),
    0n,
  );
  try {
    await assertBalanceStillCovers(wallet.runtime.client, {
      wallet: op.sender,
      token: batch.token as Address,
      amount: BigInt(batch.deploymentFee) + fundings,
    });
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== "validation_error") throw error;
    await deps.issued.finish(batch.userOpHash as string, { status: "failed", result: error.toStored() });
    await paymentFailed(deps, batch, error, null);
  }
}
