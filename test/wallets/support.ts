import { expect } from "bun:test";
import { entryPointAbi } from "@relay402/client/wire/abis";
import type { Address, Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import type { NetworkName } from "../../scripts/devnet/start";
import { chainOf } from "../support/chain";

export { randomAddress } from "../support/chain";

export { deployFundedWallet } from "../support/wallet";

export const units = (network: NetworkName, whole: bigint) => whole * 10n ** BigInt(chainOf(network).token.decimals);

export function verifyBody(
  network: NetworkName,
  wallet: Address,
  transfers: { to: Address; amount: bigint; token?: Address }[],
) {
  const token = chainOf(network).token.address;
  return {
    walletAddress: wallet,
    transactions: transfers.map((transfer) => ({
      to: transfer.to,
      amount: transfer.amount.toString(),
      token: transfer.token ?? token,
    })),
    paymentRequirements: { network },
  };
}

/** What a client does with a verify answer: sign userOpHash (EIP-191 by default) and put the signature in both places. */
export async function settleBody(
  verified: { userOp: Record<string, string>; userOpHash: Hex },
  signer: PrivateKeyAccount,
  raw = false,
) {
  const signature = raw
    ? await signer.sign({ hash: verified.userOpHash })
    : await signer.signMessage({ message: { raw: verified.userOpHash } });
  return { userOp: { ...verified.userOp, signature }, signature };
}

export async function paymasterDeposit(network: NetworkName): Promise<bigint> {
  const c = chainOf(network);
  return c.public.readContract({
    address: c.info.entryPoint,
    abi: entryPointAbi,
    functionName: "balanceOf",
    args: [c.info.paymaster],
  });
}

export function expectRefusal(response: { status: number; body: any }, status: number, code: string, field?: string) {
  expect(response.status).toBe(status);
  expect(response.body.code).toBe(code);
  expect(response.body.message).toBeString();
  expect(response.body.doc_url).toEndWith(`#${code}`);
  if (field) expect(response.body.details?.field).toBe(field);
}
