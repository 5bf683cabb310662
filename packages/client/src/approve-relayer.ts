import { type Address, BaseError, formatEther, type Hash, InsufficientFundsError, type PublicClient } from "viem";
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
  let hash: Hash;
  try {
    hash = await signer.writeContract({
      account: signer.account,
      chain: signer.chain,
      address: token,
      abi: erc20,
      functionName: "approve",
      args: [relayer, parameters.approveAmount ?? parameters.amount],
    });
  } catch (error) {
    if (error instanceof BaseError && error.walk((cause) => cause instanceof InsufficientFundsError))
      throw await noGasForApprove(parameters, error);
    throw error;
  }
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success")
    throw new Relay402ClientError("blockchain_error", `approve ${hash} reverted`, { transaction: hash });
  return hash;
}

/** The refusal of an approve the payer cannot pay the gas of: what it has, and the two ways on. */
async function noGasForApprove(parameters: ApproveRelayerParameters, cause: unknown): Promise<Relay402ClientError> {
  const { signer, publicClient, token, relayer } = parameters;
  const address = signer.account.address;
  const balance = await publicClient.getBalance({ address }).catch(() => null);
  const coin = signer.chain?.nativeCurrency.symbol ?? "native coin";
  const has = balance === null ? "too little" : `${formatEther(balance)} ${coin}`;
  return new Relay402ClientError(
    "insufficient_gas",
    `${address} has ${has}, not enough for the gas of its approve of the relayer ${relayer} for ${token} ` +
      `(the one transaction an EOA payer sends itself, once per token): send it a little ${coin} and try again, ` +
      "or pay from a smart wallet, whose UserOps relay402's paymaster sponsors",
    { address, balance: balance?.toString() ?? null },
    undefined,
    cause,
  );
}
