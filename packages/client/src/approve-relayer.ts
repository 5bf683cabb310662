import type { Address, Hash, PublicClient } from "viem";
import { Relay402ClientError } from "./errors.js";
import type { SignerClient } from "./types.js";
import { erc20Abi as erc20 } from "./wire/abis.js";

export type ApproveRelayerParameters = {
  signer: SignerClient;
  publicClient: PublicClient;
  token: Address;
  relayer: Address;
  /** What the coming payments need. */
  amount: bigint;
  /** What to approve when the allowance is short; default `amount` (pass more to approve once for many payments). */
  approveAmount?: bigint;
};

/**
 * The one step of an EOA payment that costs the payer gas: the relayer moves tokens with `transferFrom`, so it
 * needs an allowance, also for EIP-3009 tokens. Sends `approve` only when the allowance is below `amount`, waits
 * for it, and returns its hash (undefined when nothing was sent).
 */
export async function approveRelayer(parameters: ApproveRelayerParameters): Promise<Hash | undefined> {
  const { signer, publicClient, token, relayer } = parameters;
  const allowance = await publicClient.readContract({
    address: token,
    abi: erc20,
    functionName: "allowance",
    args: [signer.account.address, relayer],
  });
  if (allowance >= parameters.amount) return undefined;
  const hash = await signer.writeContract({
    account: signer.account,
    chain: signer.chain,
    address: token,
    abi: erc20,
    functionName: "approve",
    args: [relayer, parameters.approveAmount ?? parameters.amount],
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success")
    throw new Relay402ClientError("blockchain_error", `approve ${hash} reverted`, { transaction: hash });
  return hash;
}
