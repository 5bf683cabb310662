// Read-only: an owner's deployed wallets, its master wallet address (the same on every network), and a claim
// that completes deployments whose fee was paid (public; "not_found" when there is nothing to complete).
// Run against the devnet: bun run dev, then bun examples/wallet-queries.ts

import { claim, getMasterWallet, getWallets, Relay402ClientError } from "@relay402/client";
import type { Address } from "viem";
import { connect, defaultOptions, type ExampleOptions } from "./setup";

export async function main(options: ExampleOptions & { owner?: Address }) {
  const { relay402, signer, log } = await connect(options);
  const owner = options.owner ?? signer.account.address;

  const wallets = await getWallets(relay402, owner, options.network);
  log(`${owner} has ${wallets.master.length} master and ${wallets.sub.length} other wallets on ${options.network}`);
  const master = await getMasterWallet(relay402, owner);
  log(`master wallet: ${master.walletAddress} (salt ${master.salt})`);

  const claimed = await claim(relay402, { payerAddress: signer.account.address, network: options.network }).catch(
    (error) => {
      if (error instanceof Relay402ClientError && error.code === "not_found") return null;
      throw error;
    },
  );
  log(claimed ? `claim completed ${claimed.deployments.successful.length} deployments` : "nothing to claim");
  return { wallets, master, claimed };
}

if (import.meta.main) await main(defaultOptions());
