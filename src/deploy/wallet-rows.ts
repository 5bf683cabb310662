import type { MinedFigures } from "../chain/mined-figures";
import type { DeploymentBatch, DeploymentWallet } from "../db/schema";
import type { NewWallet, Phase } from "./deployment-store";

// The rows both dialects' deployment stores write (deployment-store.ts, deployment-store-postgres.ts), named alike
// in both schemas.

/** A new batch's wallet row, reserved for it, in both dialects' schemas. */
export function reservedWalletRow(
  wallet: NewWallet,
  position: number,
  batch: Pick<DeploymentBatch, "id" | "network" | "owner">,
  time: string,
) {
  return {
    ...wallet,
    walletAddress: wallet.walletAddress.toLowerCase(),
    batchId: batch.id,
    position,
    network: batch.network,
    owner: batch.owner,
    reserved: true,
    deploymentStatus: "pending" as const,
    fundingStatus: wallet.fundingRequested ? ("pending" as const) : ("none" as const),
    createdAt: time,
    updatedAt: time,
  };
}

/** The columns of one step (deployment or funding) a state change sets, named alike in both dialects' schemas. */
export function stepColumns<Row = Partial<DeploymentWallet>>(
  phase: Phase,
  fields: { status?: string; txHash?: string | null; rawTx?: string | null; error?: string | null } & {
    [Figure in "gasUsed" | "effectiveGasPrice" | "sentAt" | "minedAt"]?: string | null;
  },
): Row {
  const time = new Date().toISOString();
  const set: Record<string, unknown> = { updatedAt: time };
  const prefix = phase === "deployment" ? "deployment" : "funding";
  for (const [field, value] of Object.entries(fields)) {
    if (value !== undefined) set[`${prefix}${field[0]?.toUpperCase()}${field.slice(1)}`] = value;
  }
  // A step's transaction is about to reach the chain: its sent time (a refusal clears it with the hash).
  if (fields.status === "sent") set[`${prefix}SentAt`] = time;
  return set as Row;
}

/** The figure columns an outcome sets: our receipt's when it concluded the step, null (unknown) otherwise. */
export const outcomeFigures = (mined: MinedFigures | undefined) => ({
  gasUsed: mined?.gasUsed ?? null,
  effectiveGasPrice: mined?.effectiveGasPrice ?? null,
  minedAt: mined?.minedAt ?? null,
});
