import type { Address, Hex } from "viem";
import { entryPointAbi } from "../chain/abis";
import type { DenyCounters } from "../deny/deny-counters";
import { ApiError } from "../errors";
import { shortReason } from "../logger";
import { BundlerRejectedError, BundlerTimeoutError, UserOpAlreadyKnownError } from "./bundler";
import { type IssuedUserOpStore, issuedAt } from "./issued-user-op-store";
import type { LocatedUserOp } from "./locate-issued-user-op";
import {
  findUserOpTransaction,
  lookbackCovers,
  type OutcomeSource,
  outcomeByBundlerHint,
  outcomeInTransaction,
  type UserOpOutcome,
  waitForUserOpOutcome,
} from "./outcome";
import type { UserOpNetwork } from "./user-op-network";
import type { RpcUserOp } from "./user-operation";

export type SubmitDeps = {
  store: IssuedUserOpStore;
  /** Counts sponsored UserOps that reverted against their wallet's owner. */
  deny: Pick<DenyCounters, "recordRevert">;
};

/**
 * The kernel's second step, shared by every UserOp flow: sends the issued UserOp with the owner's signature and
 * answers its successful execution, read from the chain. An `issued` record is claimed (issued → sending) and
 * sent; a `sending` one may have been sent before (a lost answer, a restart), so its execution is looked for first
 * and then the same UserOp is sent again: with the same sender and nonce it can execute only once. A final record
 * is the flow's to replay. Anything else is thrown as the answer settle gives, and recorded when it is final:
 * - not mined yet, or the bundler out of reach: `blockchain_error` with `status: "pending"`, the claim stays;
 * - refused by the bundler, or its nonce used by another UserOp: `userop_error`, nothing was paid;
 * - mined and reverted: the flow's own error (`reverted`), and the owner is counted.
 */
export async function sendIssuedUserOp(
  deps: SubmitDeps,
  { network, hash, record }: LocatedUserOp,
  signature: Hex,
  reverted: (txHash: Hex) => ApiError,
): Promise<UserOpOutcome> {
  const fail = (error: ApiError, txHash: Hex | null = null): never => {
    deps.store.finish(hash, { status: "failed", txHash, result: error.toStored() });
    throw error;
  };
  const resume = !deps.store.claim(hash);
  const op: RpcUserOp = { ...(JSON.parse(record.userOp) as RpcUserOp), signature };
  const submission = await submitUserOp(network, { op, hash }, { resume, issuedAt: issuedAt(record) });
  switch (submission.status) {
    case "executed": {
      const { outcome } = submission;
      if (outcome.success) return outcome;
      deps.deny.recordRevert(network.runtime.name, "owner", record.owner, `sponsored ${record.kind} UserOp reverted`);
      return fail(reverted(outcome.transactionHash), outcome.transactionHash);
    }
    case "pending":
      throw new ApiError("blockchain_error", `${submission.reason}; retry settle shortly`, {
        userOpHash: hash,
        status: "pending",
      });
    case "rejected": {
      // A nonce another UserOp used is refused too: either way nothing was paid, and a repeat answers the same.
      const reason = shortReason(submission.error);
      return fail(
        new ApiError("userop_error", `bundler rejected the UserOp: ${reason}`, {
          reason,
          rpcCode: submission.error.rpcCode,
          userOpHash: hash,
        }),
      );
    }
  }
}

/** What became of one send; every outcome is read from the chain. */
type Submission =
  /** Mined: success or revert, with the UserOp's own logs. */
  | { status: "executed"; outcome: UserOpOutcome }
  /** In flight, unknown (already known, the bundler timed out) or never delivered: a later send resumes. */
  | { status: "pending"; reason: string }
  /**
   * It never executed and never will: the bundler refused it, or the wallet's nonce went to another UserOp
   * (the bundler says why).
   */
  | { status: "rejected"; error: BundlerRejectedError };

type SubmitOptions = {
  /** An earlier send may have reached the bundler (a retry, a restart): look for its execution first. */
  resume: boolean;
  /** Unix seconds at which it was issued: no execution before that needs to be looked for. */
  issuedAt: number;
};

/** One send of a signed UserOp: the bundler's answer classified through its error classes, the outcome read from the chain. */
async function submitUserOp(
  network: UserOpNetwork,
  signed: { op: RpcUserOp; hash: Hex },
  options: SubmitOptions,
): Promise<Submission> {
  const source: OutcomeSource = {
    bundler: network.bundler,
    client: network.runtime.client,
    entryPoint: network.entryPoint,
  };
  if (options.resume) {
    const outcome = await outcomeByBundlerHint(source, signed.hash);
    if (outcome) return { status: "executed", outcome };
  }
  try {
    await network.bundler.send(signed.op);
  } catch (error) {
    if (error instanceof BundlerTimeoutError)
      return { status: "pending", reason: "the bundler did not answer in time" };
    if (error instanceof BundlerRejectedError) return afterRejection(network, source, signed, error, options);
    // "Already known": the bundler holds this very UserOp (an earlier send whose answer was lost), it is in flight.
    if (!(error instanceof UserOpAlreadyKnownError)) return { status: "pending", reason: shortReason(error) };
  }
  const outcome = await waitForUserOpOutcome(source, signed.hash, network.runtime.config.receiptTimeoutMs);
  return outcome ? { status: "executed", outcome } : { status: "pending", reason: "no receipt for the UserOp in time" };
}

/**
 * A bundler that lost track of a UserOp after it was mined refuses its re-send too (AA25: the nonce is used),
 * so the chain, not the bundler, tells whether it executed: the sender's EntryPoint nonce, then its event.
 */
async function afterRejection(
  network: UserOpNetwork,
  source: OutcomeSource,
  signed: { op: RpcUserOp; hash: Hex },
  error: BundlerRejectedError,
  options: SubmitOptions,
): Promise<Submission> {
  const client = network.runtime.client;
  try {
    const hinted = await outcomeByBundlerHint(source, signed.hash);
    if (hinted) return { status: "executed", outcome: hinted };
    // A v0.7 nonce is key (high 192 bits) and sequence; getNonce answers both, so the full values compare.
    const nonce = BigInt(signed.op.nonce);
    const next = await client.readContract({
      address: network.entryPoint,
      abi: entryPointAbi,
      functionName: "getNonce",
      args: [signed.op.sender as Address, nonce >> 64n],
    });
    if (next <= nonce) return { status: "rejected", error };
    const transaction = await findUserOpTransaction(client, network.entryPoint, signed.hash);
    if (transaction) {
      const outcome = await outcomeInTransaction(client, network.entryPoint, signed.hash, transaction);
      if (outcome) return { status: "executed", outcome };
    } else if (await lookbackCovers(client, options.issuedAt)) {
      return { status: "rejected", error };
    }
  } catch {
    // The chain could not be read: nothing is decided.
  }
  return { status: "pending", reason: "the UserOp's nonce was used but its execution was not found yet" };
}
