// A smart wallet pays two merchants in one sponsored UserOp: the owner signs, the paymaster pays the gas, and
// the fee (max(minFee, feeBps of the sum)) goes to the fee recipient. Without `wallet`, one is first deployed
// and funded through relay402 (paid by the same key).
// Run against the devnet: bun run dev, then bun examples/wallet-payment.ts

import { deployWalletsFromEoa, payFromWallet } from "@relay402/client";
import { type Address, parseUnits } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { connect, type ExampleOptions, randomSalt, runExample } from "./setup";

export async function main(options: ExampleOptions & { wallet?: Address }) {
  const { relay402, signer, publicClient, token, log } = await connect(options);
  const unit = parseUnits("1", token.decimals);
  const owner = signer.account.address;

  let wallet = options.wallet;
  if (!wallet) {
    const deployment = await deployWalletsFromEoa(relay402, {
      network: options.network,
      owner,
      token: token.address,
      publicClient,
      salts: [randomSalt()],
      fundingAmounts: [10n * unit],
      payer: signer,
    });
    wallet = deployment.settlement.wallets[0]!.address as Address;
    log(`deployed and funded wallet ${wallet}`);
  }

  const merchants = [
    privateKeyToAccount(generatePrivateKey()).address,
    privateKeyToAccount(generatePrivateKey()).address,
  ];
  const { verify, settlement } = await payFromWallet(relay402, {
    owner: signer,
    wallet,
    network: options.network,
    token: token.address,
    transfers: merchants.map((to) => ({ to, amount: unit })),
  });
  log(`paid 2 × 1 ${token.symbol} + fee ${verify.feeAmount} from ${wallet} in ${settlement.txHash}`);
  return { wallet, merchants, amount: unit, fee: BigInt(verify.feeAmount), token: token.address, settlement };
}

if (import.meta.main) await runExample(main);
