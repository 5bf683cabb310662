import { expect } from "bun:test";
import { type Address, type Hex, toHex } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import type { NetworkName } from "../../scripts/devnet/start";
import { entryPointAbi, erc20Abi, factoryAbi } from "../../src/chain/abis";
import { chainOf, freshPayer } from "../support/chain";

export { randomAddress } from "../support/chain";

/** A wallet from the project's factory, owned by a fresh key, holding `tokens` of the network's test token and no gas. */
export async function deployFundedWallet(
  network: NetworkName,
  tokens: bigint,
): Promise<{ owner: PrivateKeyAccount; wallet: Address }> {
  const c = chainOf(network);
  const owner = privateKeyToAccount(generatePrivateKey());
  const salt = toHex(crypto.getRandomValues(new Uint8Array(32)));
  const deployer = c.walletFor((await freshPayer(network, { tokens: 0n })).key);
  const wallet = await c.public.readContract({
    address: c.info.factory,
    abi: factoryAbi,
    functionName: "getAddress",
    args: [owner.address, salt],
  });
  await c.public.waitForTransactionReceipt({
    hash: await deployer.writeContract({
      address: c.info.factory,
      abi: factoryAbi,
      functionName: "createAccount",
      args: [owner.address, salt],
    }),
    pollingInterval: 50,
  });
  if (tokens > 0n) {
    await c.public.waitForTransactionReceipt({
      hash: await deployer.writeContract({
        address: c.token.address,
        abi: erc20Abi,
        functionName: "mint",
        args: [wallet, tokens],
      }),
      pollingInterval: 50,
    });
  }
  return { owner, wallet };
}

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
