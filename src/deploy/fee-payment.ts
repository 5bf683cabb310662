import type { Address, Hex } from "viem";
import { entryPointAbi } from "../chain/abis";
import type { DeploymentBatch } from "../db/schema";
import type { DenyCounters } from "../deny/deny-counters";
import { ApiError } from "../errors";
import { type Logger, shortReason } from "../logger";
import type { Authorization } from "../payments/authorization";
import type { PaymentSettler } from "../payments/settle-payment";
import type { SettlementStore } from "../payments/settlement-store";
import { BundlerRejectedError, UserOpAlreadyKnownError } from "../userops/bundler";
import type { IssuedUserOpStore } from "../userops/issued-user-op-store";
import {
  findUserOpTransaction,
  lookbackCovers,
  type OutcomeSource,
  outcomeByBundlerHint,
  outcomeInTransaction,
  type UserOpOutcome,
  waitForUserOpOutcome,
} from "../userops/outcome";
import type { RpcUserOp } from "../userops/user-operation";
import type { UserOpNetwork } from "../userops/user-op-network";
import { assertBalanceStillCovers } from "../userops/wallet-state";
import type { DeploymentStore } from "./deployment-store";

export type FeePaymentDeps = {
  store: DeploymentStore;
  settler: PaymentSettler;
  settlements: SettlementStore;
  issued: IssuedUserOpStore;
  logger: Logger;
  /** Counts sponsored fee UserOps that reverted against the paying wallet's owner. */
  deny: Pick<DenyCounters, "recordRevert">;
};

export const feeAuthorizationOf = (batch: DeploymentBatch): Authorization => {
  const raw = JSON.parse(batch.feeAuthorization ?? "null") as Record<string, string>;
  return {
    ...(raw as unknown as Authorization),
    value: BigInt(raw.value as string),
    validAfter: BigInt(raw.validAfter as string),
    validBefore: BigInt(raw.validBefore as string),
  };
};

const pending = (message: string, details: Record<string, unknown>) =>
  new ApiError("blockchain_error", message, { ...details, status: "pending" });

/** The fee was not taken: the batch keeps its failure and frees its wallets for a new batch. */
function paymentFailed(deps: FeePaymentDeps, batch: DeploymentBatch, error: ApiError, txHash: string | null): never {
  deps.store.failPayment(batch.id, {
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
  deps.store.setPayment(batch.id, { status: "sending" });
  try {
    const response = await deps.settler.settle(wallet.runtime, feeAuthorizationOf(batch), wallet.relayer);
    deps.store.setPayment(batch.id, { status: "success", txHash: response.transaction.toLowerCase(), error: null });
  } catch (error) {
    const apiError =
      error instanceof ApiError
        ? error
        : new ApiError("blockchain_error", "fee payment failed", { reason: shortReason(error) });
    const txHash = (apiError.details?.transaction as string | undefined) ?? null;
    if (apiError.code === "blockchain_error") {
      // Outcome unknown: the batch stays `sending`; a later settle, claim or restart resolves it.
      if (txHash) deps.store.setPayment(batch.id, { status: "sending", txHash: txHash.toLowerCase() });
      throw pending(apiError.message, { paymentTxHash: txHash, reason: apiError.details?.reason });
    }
    paymentFailed(deps, batch, apiError, txHash);
  }
}

/** Whether the EOA fee of a batch left `sending` by a crash ever reached the chain. */
export function feeWasSent(deps: FeePaymentDeps, batch: DeploymentBatch): boolean {
  const fee = feeAuthorizationOf(batch);
  const record = deps.settlements.find({ network: batch.network, payer: fee.from, nonce: fee.nonce });
  return record !== undefined && record.status !== "pending" && record.status !== "failed";
}

/**
 * Smart-wallet flow: one UserOp pays the fee and every funding. The signed UserOp is stored before it
 * goes to the bundler; resuming a batch first looks for its execution, then re-sends the same UserOp
 * (same nonce: it can execute at most once). Outcomes are read from the chain; the bundler's receipt only
 * names the transaction.
 */
export async function payFeeByUserOp(
  deps: FeePaymentDeps,
  wallet: UserOpNetwork,
  batch: DeploymentBatch,
  receiptTimeoutMs: number,
): Promise<void> {
  if (batch.paymentStatus === "success") return;
  const hash = batch.userOpHash as Hex;
  const op = JSON.parse(batch.signedUserOp ?? "null") as RpcUserOp;
  const resuming = batch.paymentStatus === "sending";
  const source: OutcomeSource = {
    bundler: wallet.bundler,
    client: wallet.runtime.client,
    entryPoint: wallet.entryPoint,
  };
  if (!resuming) await assertPayerStillCovers(deps, wallet, batch, op);
  deps.store.setPayment(batch.id, { status: "sending" });
  deps.issued.claim(hash);
  let receipt: Executed | null = resuming ? await outcomeByBundlerHint(source, hash) : null;
  if (!receipt) {
    try {
      await wallet.bundler.send(op);
    } catch (error) {
      receipt = await outcomeByBundlerHint(source, hash);
      // "Already known": the bundler holds this very UserOp (sent before a restart), so it is in flight, not rejected.
      if (!receipt && !(error instanceof UserOpAlreadyKnownError)) {
        if (!(error instanceof BundlerRejectedError)) {
          throw pending("bundler unreachable; settle or claim again later", {
            userOpHash: hash,
            reason: shortReason(error),
          });
        }
        // A bundler that lost track of this UserOp after it was mined refuses its re-send too (AA25, the nonce
        // is used): the chain, not the bundler, tells whether it executed.
        const executed = await executedOnChain(wallet, op, hash, batch);
        if (executed === "superseded") {
          // Another UserOp of the paying wallet used this nonce: this one can never execute, the fee was not taken.
          const superseded = new ApiError(
            "userop_error",
            "the paying wallet's nonce was used by another UserOp; the fee was not taken",
            { userOpHash: hash },
          );
          deps.issued.finish(hash, {
            status: "failed",
            result: { code: superseded.code, message: superseded.message },
          });
          paymentFailed(deps, batch, superseded, null);
        }
        if (executed === "unknown") {
          throw pending("the UserOp's nonce was used but its execution was not found yet; claim again later", {
            userOpHash: hash,
            reason: shortReason(error),
          });
        }
        if (!executed) {
          const rejected = new ApiError("userop_error", `bundler rejected the UserOp: ${shortReason(error)}`, {
            userOpHash: hash,
          });
          deps.issued.finish(hash, { status: "failed", result: { code: rejected.code, message: rejected.message } });
          paymentFailed(deps, batch, rejected, null);
        }
        receipt = executed;
      }
    }
  }
  receipt ??= await waitForUserOpOutcome(source, hash, receiptTimeoutMs);
  if (!receipt) throw pending("UserOp sent but not yet mined", { userOpHash: hash });
  const txHash = receipt.transactionHash.toLowerCase();
  if (!receipt.success) {
    const owner = deps.issued.find(hash)?.owner;
    if (owner) deps.deny.recordRevert(wallet.runtime.name, "owner", owner, "sponsored deployment fee UserOp reverted");
    const reverted = new ApiError("payment_settlement_error", "the fee UserOp reverted on-chain", {
      transaction: txHash,
      userOpHash: hash,
    });
    deps.issued.finish(hash, { status: "failed", txHash, result: { code: reverted.code, message: reverted.message } });
    paymentFailed(deps, batch, reverted, txHash);
  }
  // The fundings travelled in the same UserOp: recorded with the payment, in one transaction.
  deps.store.paidWithFundings(batch.id, txHash);
  deps.issued.finish(hash, { status: "success", txHash, result: { batchId: batch.id, txHash } });
}

/** What settling needs of a UserOp's execution, read from the chain. */
type Executed = UserOpOutcome;

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
  const fundings = deps.store.walletsOf(batch.id).reduce((sum, row) => sum + BigInt(row.fundingAmount ?? "0"), 0n);
  try {
    await assertBalanceStillCovers(wallet.runtime.client, {
      wallet: op.sender,
      token: batch.token as Address,
      amount: BigInt(batch.deploymentFee) + fundings,
    });
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== "validation_error") throw error;
    const hash = batch.userOpHash as Hex;
    deps.issued.finish(hash, { status: "failed", result: { code: error.code, message: error.message } });
    paymentFailed(deps, batch, error, null);
  }
}

/**
 * After the bundler refused a re-send: null when the sender's EntryPoint nonce has not passed the UserOp's (a
 * real rejection); the UserOp's own execution, found from its UserOperationEvent, when it was mined;
 * "superseded" when the nonce moved on and no event exists since the batch was created (another UserOp used the
 * nonce); "unknown" when the chain could not be read or the search does not reach back that far.
 */
async function executedOnChain(
  wallet: UserOpNetwork,
  op: RpcUserOp,
  hash: Hex,
  batch: DeploymentBatch,
): Promise<Executed | null | "superseded" | "unknown"> {
  const client = wallet.runtime.client;
  try {
    // A v0.7 nonce is key (high 192 bits) and sequence; getNonce answers both, so the full values compare.
    const nonce = BigInt(op.nonce);
    const next = await client.readContract({
      address: wallet.entryPoint,
      abi: entryPointAbi,
      functionName: "getNonce",
      args: [op.sender as Address, nonce >> 64n],
    });
    if (next <= nonce) return null;
    const transaction = await findUserOpTransaction(client, wallet.entryPoint, hash);
    if (!transaction) {
      const createdAt = Math.floor(Date.parse(batch.createdAt) / 1000);
      return (await lookbackCovers(client, createdAt)) ? "superseded" : "unknown";
    }
    return (await outcomeInTransaction(client, wallet.entryPoint, hash, transaction)) ?? "unknown";
  } catch {
    return "unknown";
  }
}
