import type { MinedFigures } from "../chain/mined-figures";
import type { Async } from "../db/async-port";
import type { DeploymentBatch, DeploymentWallet } from "../db/schema";

export type Phase = "deployment" | "funding";
export type NewBatch = Omit<
  DeploymentBatch,
  "id" | "paymentStatus" | "paymentTxHash" | "paymentError" | "result" | "createdAt" | "updatedAt"
>;
export type NewWallet = Pick<
  DeploymentWallet,
  "walletAddress" | "salt" | "fundingRequested" | "fundingAmount" | "fundingAuthorization"
>;

/** Where deployment batches and their wallets are remembered; every state change is one statement or one transaction. */
export type DeploymentStore = {
  batch(id: number): DeploymentBatch | undefined;
  walletsOf(batchId: number): DeploymentWallet[];
  findBatch(batchKey: string): DeploymentBatch | undefined;
  /** The live reservation of a wallet, if any. */
  reservation(network: string, walletAddress: string): DeploymentWallet | undefined;
  /** Inserts the batch and reserves its wallets in one transaction; throws WalletReservedError on a taken wallet. */
  create(newBatch: NewBatch, wallets: NewWallet[]): DeploymentBatch;
  /**
   * Records the fee payment's state. `sending` never replaces a final state (success, failed): another request or
   * instance that read the batch before it was paid must not turn it back into a payment in flight.
   */
  setPayment(
    batchId: number,
    payment: { status: DeploymentBatch["paymentStatus"]; txHash?: string | null; error?: string | null },
  ): void;
  /** The fee was not taken: the payment is recorded failed, the wallets freed and the failure stored as the result. */
  failPayment(batchId: number, failure: { txHash: string | null; error: string; result: unknown }): void;
  /** The fee UserOp executed: the payment is paid and every requested funding (in the same UserOp) succeeded. */
  paidWithFundings(batchId: number, txHash: string): void;
  /** Removes a batch of which nothing ever reached the chain. */
  discard(batchId: number): void;
  saveResult(batchId: number, result: unknown): void;
  /** pending|failed → sending for the given wallets, atomically (deployments in backoff are skipped). */
  lease(phase: Phase, ids: number[], nowSeconds: number): number[];
  /** A deployment mined without deploying this wallet: one more attempt, abandoned at the cap. */
  countFailedAttempt(
    id: number,
    policy: { maxAttempts: number; backoffSeconds: number },
    nowSeconds: number,
  ): { abandoned: boolean; reason: string | null };
  /** Written before the broadcast: the hash and raw transaction that may reach the chain. */
  markSent(phase: Phase, ids: number[], txHash: string, rawTx: string): void;
  /** The node refused the step's transaction: it can never be mined, so the rows may be leased again. */
  markRefused(phase: Phase, ids: number[], error: string): void;
  markReplaced(phase: Phase, ids: number[], txHash: string): void;
  /**
   * Concludes a step in flight (sending or sent) with what the chain (or the simulation) said. False, and nothing
   * changed, when the step was no longer in flight: another request or instance resolved the same transaction
   * first, and only that one counts its outcome (a failed deployment is counted once per transaction).
   */
  markOutcome(
    phase: Phase,
    id: number,
    outcome: { status: "success" | "failed" | "abandoned"; txHash?: string | null; error?: string | null } & {
      /** Our mined transaction's receipt, when it is the step's `txHash` (one transaction serves the whole lease). */
      mined?: MinedFigures;
    },
  ): boolean;
  /** Batches in scope of a claim, newest first. */
  batchesFor(scope: { paymentTxHash?: string; payer?: string; network?: string }): DeploymentBatch[];
  /** Reserved wallets of an owner with their batch, oldest first. */
  walletsOfOwner(owner: string, network?: string): { wallet: DeploymentWallet; batch: DeploymentBatch }[];
  /** What a previous process left unfinished (updated before `before`, an ISO time). */
  unfinished(before: string): { batches: DeploymentBatch[]; wallets: DeploymentWallet[] };
  /** Rows a dead process leased but never sent (updated before `before`) go back to pending: nothing reached the chain. */
  unleaseAll(before: string): void;
};

/**
 * The port the deployment flows take: every method answers a promise. SQLite's store through `asAsync`
 * (`asAsync(createDeploymentStore(db))`), PostgreSQL's is deployment-store-postgres.ts. A flow awaits each call, so
 * another request can run between two of them: whatever must not race is one call here (`create` with its
 * reservations, `lease`, `countFailedAttempt`), one statement or one transaction in each adapter.
 */
export type AsyncDeploymentStore = Async<DeploymentStore>;

/** A wallet that another live batch already reserved (refused: "already paid for"). */
export class WalletReservedError extends Error {
  constructor(readonly walletAddress: string) {
    super(`wallet ${walletAddress} is already paid for by another deployment`);
  }
}

export const RETRYABLE = ["pending", "failed"] as const;
/** A step leased (sending) or sent: only these are concluded by markOutcome. */
export const IN_FLIGHT = ["sending", "sent"] as const;
/** Payment states a payment may (again) be sent from: `sending` never replaces success or failed. */
export const UNPAID = ["pending", "sending"] as const;
