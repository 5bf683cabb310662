// An EOA pays 1 token to a merchant: approve the relayer once, sign, verify, settle. No fee is charged. A payer
// without native coin for the approve, on a token with EIP-2612 permit, signs a permit instead (onboarding "permit").
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
  log(
    approval
      ? `approved the relayer in ${approval}`
      : onboarding === "permit"
        ? "permitted the relayer by signature (sent with the payment)"
        : "allowance already enough",
  );
  log(`paid 1 ${token.symbol} to ${to} in ${settlement.transaction} (block ${settlement.blockNumber})`);
  return { to, value, token: token.address, settlement };
}

if (import.meta.main) await runExample(main);
