import type { Address, Hex } from "viem";
import { assertUserOpIsPayment } from "./check-user-op.js";
import type { Relay402Client } from "./client.js";
import { getNetworkConfig, tokenOf } from "./get-config.js";
import type { NetworkName, SignerClient, WalletPaymentSettleResult, WalletPaymentVerifyResult } from "./types.js";
import type { RpcUserOp } from "./wire/user-operation.js";
import { walletPaymentFee, withFee } from "./wire/wallet-fee.js";

export type WalletPaymentParameters = {
  /** The wallet's owner: signs the userOpHash (EIP-191). It needs no gas; the paymaster pays. */
  owner: SignerClient;
  /** The smart wallet (from the project's factory) that pays. */
  wallet: Address;
  network: NetworkName;
  token: Address;
  /** 1 to 20 transfers of `token`. */
  transfers: readonly { to: Address; amount: bigint }[];
};

export type WalletPaymentResult = { verify: WalletPaymentVerifyResult; settlement: WalletPaymentSettleResult };

/**
 * A smart-wallet payment: /wallet/verify builds a sponsored UserOp; the client checks it pays exactly the
 * transfers plus the fee of /config (`max(minFee, ceil(sum × feeBps / 10000))`) before the owner signs its hash,
 * then /wallet/settle (idempotent, retried while pending or unreachable).
 */
export async function payFromWallet(
  client: Relay402Client,
  parameters: WalletPaymentParameters,
): Promise<WalletPaymentResult> {
  const config = await getNetworkConfig(client, parameters.network);
  const token = tokenOf(config, parameters.token);
  const verify = await client.post<WalletPaymentVerifyResult>("/wallet/verify", {
    walletAddress: parameters.wallet,
    transactions: parameters.transfers.map((transfer) => ({ ...transfer, token: parameters.token })),
    paymentRequirements: { network: parameters.network },
  });
  const sum = parameters.transfers.reduce((total, transfer) => total + transfer.amount, 0n);
  const fee = walletPaymentFee(sum, { feeBps: token.fees.feeBps, minFee: BigInt(token.fees.minFee) });
  assertUserOpIsPayment(verify.userOp, verify.userOpHash, {
    sender: parameters.wallet,
    token: parameters.token,
    relayer: config.contracts.relayer,
    paymaster: config.contracts.paymaster,
    entryPoint: config.contracts.entryPoint,
    chainId: config.chainId,
    payments: withFee(parameters.transfers, { to: config.feeRecipient, amount: fee }),
  });
  const settlement = await client.post<WalletPaymentSettleResult>(
    "/wallet/settle",
    await signedUserOp(parameters.owner, verify.userOp, verify.userOpHash),
    { idempotent: true },
  );
  return { verify, settlement };
}

/** The owner's EIP-191 signature of userOpHash, in the UserOp and beside it, as the settles take it. */
export async function signedUserOp(owner: SignerClient, userOp: RpcUserOp, hash: Hex) {
  const signature = await owner.signMessage({ account: owner.account, message: { raw: hash } });
  return { userOp: { ...userOp, signature }, signature };
}
