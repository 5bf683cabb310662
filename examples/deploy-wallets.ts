// Wallet deployment (admin key needed): the EOA pays the deployment fee (deploymentFeePerWallet per wallet) for
// two wallets and funds the first; then that new wallet pays, in a sponsored UserOp, for a third one.
// Run against the devnet: bun run dev, then bun examples/deploy-wallets.ts

import { deployWalletsFromEoa, deployWalletsFromWallet, quoteDeployment } from "@relay402/client";
import { type Address, parseUnits } from "viem";
import { connect, type ExampleOptions, randomSalt, runExample } from "./setup";

export async function main(options: ExampleOptions) {
  const { relay402, signer, publicClient, token, log } = await connect(options);
  const owner = signer.account.address;
  const request = { network: options.network, owner, token: token.address, publicClient };
  const funding = parseUnits("5", token.decimals);

  const salts = [randomSalt(), randomSalt()];
  const quote = await quoteDeployment(relay402, { ...request, salts });
  log(`deploying ${quote.wallets.map((w) => w.address).join(", ")} for a fee of ${quote.deploymentFee}`);
  const byEoa = await deployWalletsFromEoa(relay402, {
    ...request,
    salts,
    fundingAmounts: [funding, 1n],
    payer: signer,
  });
  log(`fee paid in ${byEoa.settlement.paymentTxHash}, deployed: ${byEoa.settlement.deploymentSuccess}`);

  const payerWallet = byEoa.settlement.wallets[0]!.address as Address;
  const byWallet = await deployWalletsFromWallet(relay402, {
    ...request,
    salts: [randomSalt()],
    payerWallet,
    payerOwner: signer,
  });
  log(`${payerWallet} paid for ${byWallet.settlement.wallets[0]?.address} in ${byWallet.settlement.paymentTxHash}`);
  return { owner, funding, payerWallet, byEoa, byWallet, token: token.address };
}

if (import.meta.main) await runExample(main);
