import { entryPointAbi } from "@relay402/client/wire/abis";
import type { RpcUserOp } from "@relay402/client/wire/user-operation";
import type { Address, Hex } from "viem";
import type { DenyCounters, DenyKind } from "../deny/deny-counters";
import { ApiError, PaymentPendingError } from "../errors";
import { shortReason } from "../logger";
import { observeUserOpReceiptLag } from "../metrics/metrics";
import { BundlerRejectedError, BundlerTimeoutError, UserOpAlreadyKnownError } from "./bundler";
import { type AsyncIssuedUserOpStore, issuedAt } from "./issued-user-op-store";
import type { LocatedUserOp } from "./locate-issued-user-op";
import {
  findUserOpTransaction,
  lookbackCovers,
  type OutcomeSource,
  outcomeByBundlerHint,
  outcomeInTransaction,
  type UserOpOutcome,
  userOpFigures,
  waitForUserOpOutcome,
} from "./outcome";
import { revertRefusal, SimulatedRevertError, simulateUserOpCalls } from "./simulate";
import type { UserOpNetwork } from "./user-op-network";

export type SubmitDeps = {
  store: AsyncIssuedUserOpStore;
  /** Counts sponsored UserOps that reverted against their wallet's owner. */
  deny: Pick<DenyCounters, "recordRevert">;
};

/** Which count a flow's reverted UserOp goes to; null: the owner's, which refuses every flow. */
export type RevertCount = (outcome: UserOpOutcome) => { kind: DenyKind; reason: string } | null;

/** A UserOp's final failure, with the figures of its execution when it ran (the paymaster still paid for it). */
export async function recordFailure(deps: SubmitDeps, hash: Hex, error: ApiError, executed?: UserOpOutcome) {
  await deps.store.finish(hash, {
    status: "failed",
    txHash: executed?.transactionHash ?? null,
    result: error.toStored(),
    ...(executed && { mined: userOpFigures(executed) }),
  });
}

/** A UserOp that executed and reverted: counted against its owner (or where `countRevert` says), recorded failed. */
export async function recordReverted(
  deps: SubmitDeps,
  { network, hash, record }: LocatedUserOp,
  outcome: UserOpOutcome,
  reverted: (txHash: Hex) => ApiError,
  countRevert?: RevertCount,
): Promise<ApiError> {
  const count = countRevert?.(outcome) ?? { kind: "owner", reason: `sponsored ${record.kind} UserOp reverted` };
  await deps.deny.recordRevert(network.runtime.name, count.kind, record.owner, count.reason);
  const error = reverted(outcome.transactionHash);
  await recordFailure(deps, hash, error, outcome);
  return error;
}

/**
 * The kernel's second step, shared by every UserOp flow: sends the issued UserOp with the owner's signature and
 * answers its successful execution, read from the chain. An `issued` record is claimed (issued → sending) and
 * sent; a `sending` one may have been sent before (a lost answer, a restart), so its execution is looked for first
 * and then the same UserOp is sent again: with the same sender and nonce it can execute only once. A final record
 * is the flow's to replay. Anything else is thrown as the answer settle gives, and recorded when it is final:
 * - not mined yet, or the bundler's answer lost: the 202 pending answer under the userOpHash, the claim stays;
 * - the bundler out of reach: `blockchain_error` (5xx), the claim stays and a later settle resumes;
 * - calls that revert when simulated just before the send: `refuseRevert`'s answer (default 400 `userop_error`
 *   naming the reason), the claim released, nothing sent;
 * - refused by the bundler, or its nonce used by another UserOp: `userop_error`, nothing was paid;
 * - mined and reverted: the flow's own error (`reverted`), and the owner is counted (where `countRevert` says).
 */
export async function sendIssuedUserOp(
  deps: SubmitDeps,
  { network, hash, record }: LocatedUserOp,
  signature: Hex,
  reverted: (txHash: Hex) => ApiError,
  countRevert?: RevertCount,
  refuseRevert: (revert: SimulatedRevertError) => ApiError = (revert) =>
    revertRefusal(revert, "userOp", { userOpHash: hash }),
): Promise<UserOpOutcome> {
  const op: RpcUserOp = { ...(JSON.parse(record.userOp) as RpcUserOp), signature };
  const source: OutcomeSource = {
    bundler: network.bundler,
    client: network.runtime.client,
    entryPoint: network.entryPoint,
  };
  const fail = async (error: ApiError, executed?: UserOpOutcome): Promise<never> => {
    await recordFailure(deps, hash, error, executed);
    throw error;
  };
  // In flight, unknown or never delivered: the claim stays, and a later settle resumes.
  const pending = (reason: string) =>
    new PaymentPendingError(
      { paymentId: hash, network: network.runtime.name, payer: op.sender },
      `${reason}; retry settle shortly`,
    );
  const executed = async (outcome: UserOpOutcome): Promise<UserOpOutcome> => {
    if (outcome.success) return outcome;
    throw await recordReverted(deps, { network, hash, record }, outcome, reverted, countRevert);
  };

  if (!(await deps.store.claim(hash))) {
    const outcome = await outcomeByBundlerHint(source, hash);
    if (outcome) return executed(outcome);
  } else {
    // Claimed, so never sent: its calls are simulated once more against the latest state, and a revert is
    // refused with the claim released (the UserOp may settle once the state allows it), never paid for.
    try {
      await simulateUserOpCalls(network, op.sender as Address, op.callData as Hex);
    } catch (error) {
      await deps.store.release(hash);
      throw error instanceof SimulatedRevertError ? refuseRevert(error) : error;
    }
  }
  const sentAt = Date.now();
  try {
    await network.bundler.send(op);
  } catch (error) {
    if (error instanceof BundlerTimeoutError) throw pending("the bundler did not answer in time");
    if (error instanceof BundlerRejectedError) {
      const verdict = await afterRejection(network, source, { op, hash }, issuedAt(record));
      if (verdict === "unknown") throw pending("the UserOp's nonce was used but its execution was not found yet");
      if (verdict !== "never") return executed(verdict);
      // Refused, or its nonce went to another UserOp: nothing was paid, and a repeat answers the same.
      const reason = shortReason(error);
      return fail(
        new ApiError("userop_error", `bundler rejected the UserOp: ${reason}`, {
          reason,
          rpcCode: error.rpcCode,
          userOpHash: hash,
        }),
      );
    }
    // "Already known": the bundler holds this very UserOp (an earlier send whose answer was lost), it is in flight.
    if (!(error instanceof UserOpAlreadyKnownError))
      throw new ApiError(
        "blockchain_error",
        `the bundler did not take the UserOp (${shortReason(error)}); retry settle`,
        {
          userOpHash: hash,
          paymentId: hash,
        },
      );
  }
  const outcome = await waitForUserOpOutcome(source, hash, network.runtime.config.receiptTimeoutMs);
  if (!outcome) throw pending("no receipt for the UserOp in time");
  observeUserOpReceiptLag(network.runtime.name, Date.now() - sentAt);
  return executed(outcome);
}

/**
 * A bundler that lost track of a UserOp after it was mined refuses its re-send too (AA25: the nonce is used),
 * so the chain, not the bundler, tells whether it executed: the sender's EntryPoint nonce, then its event.
 * "never": it did not execute and cannot any more; "unknown": the chain could not tell yet.
 */
async function afterRejection(
  network: UserOpNetwork,
  source: OutcomeSource,
  signed: { op: RpcUserOp; hash: Hex },
  issuedAtSeconds: number,
): Promise<UserOpOutcome | "never" | "unknown"> {
  const client = network.runtime.client;
  try {
    const hinted = await outcomeByBundlerHint(source, signed.hash);
    if (hinted) return hinted;
    // A v0.7 nonce is key (high 192 bits) and sequence; getNonce answers both, so the full values compare.
    const nonce = BigInt(signed.op.nonce);
    const next = await client.readContract({
      address: network.entryPoint,
      abi: entryPointAbi,
      functionName: "getNonce",
      args: [signed.op.sender as Address, nonce >> 64n],
    });
    if (next <= nonce) return "never";
    const transaction = await findUserOpTransaction(client, network.entryPoint, signed.hash);
    if (transaction) {
      const outcome = await outcomeInTransaction(client, network.entryPoint, signed.hash, transaction);
      if (outcome) return outcome;
    } else if (await lookbackCovers(client, issuedAtSeconds)) {
      return "never";
    }
  } catch {
    // The chain could not be read: nothing is decided.
  }
  return "unknown";
}
