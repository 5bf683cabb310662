// Read-only: an owner's deployed wallets, its master wallet address (the same on every network), and a claim
// that completes deployments whose fee was paid (public; "not_found" when there is nothing to complete).
// Run against the devnet: bun run dev, then bun examples/wallet-queries.ts

import {
  claim,
  getMasterWallet,
  getWallets,
  type MasterWallet,
  type NetworkName,
  Relay402ClientError,
} from "@relay402/client";
import type { Address } from "viem";
import { connect, type ExampleOptions, runExample } from "./setup";

export async function main(options: ExampleOptions & { owner?: Address }) {
  const { relay402, signer, log } = await connect(options);
  const owner = options.owner ?? signer.account.address;

  // An owner with no wallet yet is answered not_found: none, as far as this example is concerned.
  const wallets = await getWallets(relay402, owner, options.network).catch((error) => {
    if (error instanceof Relay402ClientError && error.code === "not_found") return { master: [], sub: [] };
    throw error;
  });
  log(`${owner} has ${wallets.master.length} master and ${wallets.sub.length} other wallets on ${options.network}`);
  const master = await getMasterWallet(relay402, owner);
  log(masterWalletLine(master, options.network));

  const claimed = await claim(relay402, { payerAddress: signer.account.address, network: options.network }).catch(
    (error) => {
      if (error instanceof Relay402ClientError && error.code === "not_found") return null;
      throw error;
    },
  );
  log(claimed ? `claim completed ${claimed.deployments.successful.length} deployments` : "nothing to claim");
  return { wallets, master, masterLine: masterWalletLine(master, options.network), claimed };
}

/**
 * The master wallet's address is the same on every network whether or not it exists yet: the line says which it is
 * on this network (its deployment from /wallet/:owner/master), so that nobody sends funds to an address they take
 * for a live wallet without knowing.
 */
export function masterWalletLine(master: MasterWallet, network: NetworkName): string {
  const at = `master wallet: ${master.walletAddress} (salt ${master.salt})`;
  const deployment = master.deployments[network];
  if (!deployment) return `${at}: not deployed on ${network} (examples/deploy-wallets.ts deploys wallets)`;
  if (deployment.deploymentCompleted) return `${at}: deployed on ${network} in ${deployment.deploymentTxHash}`;
  return `${at}: not deployed on ${network} yet (its fee is paid: a claim completes the deployment)`;
}

if (import.meta.main) await runExample(main);
