// Gasless swaps of the network's first token for its wrapped native token on the whitelisted DEX routers: first
// from the EOA (approve the relayer once, sign SwapWithAuthorization, the service settles), then from a smart
// wallet (the owner signs the UserOp's hash, the paymaster pays). Before signing, the client checks that what the
// service built pays the asked recipient, sells exactly the asked amount, charges the fee of /config and accepts
// no less than 1% below the quote; the relayer builds the router call itself and checks the output arrived.
// Run against the devnet: bun run dev, then bun examples/swap.ts

import { deployWalletsFromEoa, swap, swapFromWallet } from "@relay402/client";
import { type Address, formatUnits, parseUnits } from "viem";
import { connect, ExampleError, type ExampleOptions, randomSalt, runExample } from "./setup";

export async function main(options: ExampleOptions & { wallet?: Address }) {
  const { relay402, config, signer, publicClient, token, log } = await connect(options);
  if (!config.swap) throw new ExampleError(`swaps are off on ${options.network}`);
  const unit = parseUnits("1", token.decimals);
  const order = {
    network: options.network,
    sellToken: token.address,
    buyToken: config.swap.wrappedNative,
    sellAmount: 10n * unit,
    slippageBps: 100,
  };

  // From the EOA: the output goes to the payer itself (pass `recipient` to send it elsewhere).
  const eoa = await swap(relay402, signer, { ...order, publicClient });
  const { swap: done } = eoa.settlement;
  log(`swapped 10 ${token.symbol} (fee ${formatUnits(BigInt(done.fee), token.decimals)}) for ${done.buyAmount} wei`);
  log(
    `of wrapped native (at least ${eoa.body.swapPayload.authorization.minBuyAmount}) in ${eoa.settlement.transaction}`,
  );

  // From a smart wallet (deployed and funded with 20 tokens through relay402 when none is given).
  let wallet = options.wallet;
  if (!wallet) {
    const deployment = await deployWalletsFromEoa(relay402, {
      network: options.network,
      owner: signer.account.address,
      token: token.address,
      publicClient,
      salts: [randomSalt()],
      fundingAmounts: [20n * unit],
      payer: signer,
    });
    wallet = deployment.settlement.wallets[0]!.address as Address;
    log(`deployed and funded wallet ${wallet}`);
  }
  const fromWallet = await swapFromWallet(relay402, signer, { ...order, wallet });
  log(
    `wallet ${wallet} swapped 10 ${token.symbol} for ${fromWallet.settlement.swap.buyAmount} wei in ${fromWallet.settlement.txHash}`,
  );
  return { eoa, fromWallet, wallet, order };
}

if (import.meta.main) await runExample(main);
