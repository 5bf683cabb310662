import type { Address, Hex } from "viem";
import { entryPointAbi } from "../chain/abis";
import { shortReason } from "../logger";
import { BundlerRejectedError, BundlerTimeoutError, UserOpAlreadyKnownError } from "./bundler";
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

/** What became of a signed UserOp handed to the kernel; every outcome is read from the chain. */
export type Submission =
  /** Mined: success or revert, with the UserOp's own logs. */
  | { status: "executed"; outcome: UserOpOutcome }
  /** In flight or unknown (sent, already known, the bundler timed out): a later submit finds the outcome. */
  | { status: "pending"; reason: string }
  /** The bundler refused it and the chain shows it never executed: nothing was paid. */
  | { status: "rejected"; error: BundlerRejectedError }
  /** The wallet's nonce went to another UserOp and this one never executed: it never will (the bundler says why). */
  | { status: "superseded"; error: BundlerRejectedError }
  /** Nothing reached the bundler: it may be submitted again. */
  | { status: "unreachable"; reason: string };

export type SubmitOptions = {
  /** An earlier submit may have sent it (a retry, a restart): look for its execution before sending again. */
  resume: boolean;
  /** Unix seconds at which it was issued: no execution before that needs to be looked for. */
  issuedAt: number;
};

/**
 * The kernel's second step, shared by every UserOp flow: send a signed UserOp that was issued and checked, at
 * most once in effect (same sender and nonce: it can execute only once), classify the bundler's answer through
 * its error classes, and read the outcome from the chain. The flow maps the submission to its records.
 */
export async function submitUserOp(
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
    if (!(error instanceof UserOpAlreadyKnownError)) return { status: "unreachable", reason: shortReason(error) };
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
      return { status: "superseded", error };
    }
  } catch {
    // The chain could not be read: nothing is decided.
  }
  return { status: "pending", reason: "the UserOp's nonce was used but its execution was not found yet" };
}
