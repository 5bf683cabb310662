// An EOA pays 1 token to a merchant: approve the relayer once, sign, verify, settle. No fee is charged. A payer
// without native coin for the approve signs a permit instead on a token with EIP-2612 (onboarding "permit"), else
// an approve the service funds and broadcasts (onboarding "fundedApprove").
// Run against the devnet: bun run dev, then bun examples/eoa-payment.ts

import { pay } from "@relay402/client";
import { type Address, parseUnits } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { connect, type ExampleOptions, runExample } from "./setup";

export async function main(options: ExampleOptions & { to?: Address }) {
  const { relay402, signer, publicClient, token, log } = await connect(options);
  const to = options.to ?? privateKeyToAccount(generatePrivateKey()).address;
  const value = parseUnits("1", token.decimals);

  const { approval, onboarding, settlement } = await pay(relay402, {
    signer,
    publicClient,
    network: options.network,
    token: token.address,
    to,
    value,
  });
  const onboarded = {
    none: "allowance already enough",
    approve: `approved the relayer in ${approval}`,
    permit: "permitted the relayer by signature (sent with the payment)",
    fundedApprove: `signed an approve of the relayer, funded and broadcast by the service in ${approval}`,
  };
  log(onboarded[onboarding]);
  log(`paid 1 ${token.symbol} to ${to} in ${settlement.transaction} (block ${settlement.blockNumber})`);
  return { to, value, token: token.address, settlement };
}

if (import.meta.main) await runExample(main);
