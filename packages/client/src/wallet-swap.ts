import type { Static } from "@sinclair/typebox";
import { type Address, getAddress, type Hex } from "viem";
import { assertUserOpIsSwap, type SignedWalletSwap } from "./check-swap-user-op.js";
import type { Relay402Client } from "./client.js";
import { Relay402ClientError } from "./errors.js";
import { getNetworkConfig, tokenOf } from "./get-config.js";
import type { SwapOrder } from "./swap.js";
import type { SignerClient } from "./types.js";
import { signedUserOp } from "./wallet-payment.js";
import type { WalletSwapSettleResponseSchema, WalletSwapVerifyResponseSchema } from "./wire/swap/schemas.js";
import type { RpcUserOp } from "./wire/user-operation.js";

type WalletSwapVerifyAnswer = Static<typeof WalletSwapVerifyResponseSchema>;

/** `/wallet/swap/verify` (decisions.md "Swaps") when valid: the sponsored UserOp of the swap and its quote. */
export type WalletSwapVerifyResult = Extract<WalletSwapVerifyAnswer, { isValid: true }> & {
  userOp: RpcUserOp;
  userOpHash: Hex;
};

/** `/wallet/swap/settle`: as `/wallet/settle`, with the swap as the relayer's SwapExecuted reports it. */
export type WalletSwapSettleResult = Static<typeof WalletSwapSettleResponseSchema>;

export type WalletSwapParameters = SwapOrder & {
  /** The smart wallet (from the project's factory) that sells; the output goes to it unless `recipient` is set. */
  wallet: Address;
};

export type WalletSwapResult = {
  verify: WalletSwapVerifyResult;
  /** The order and route the owner signed, as decoded from the UserOp. */
  signed: SignedWalletSwap;
  settlement: WalletSwapSettleResult;
};

/**
 * A smart-wallet swap: /wallet/swap/verify builds a sponsored UserOp whose batch approves the relayer for
 * `sellAmount` and calls `swapBatch`; the client decodes that batch and refuses to sign unless it is exactly the
 * swap asked for (assertUserOpIsSwap: tokens, amount, recipient, the fee of /config, a minimum not below the
 * caller's floor, a router of /config, nothing else in the batch, the userOpHash of this UserOp). Then the owner
 * signs the hash (EIP-191; it needs no gas, the paymaster pays) and /wallet/swap/settle (idempotent, retried
 * while pending or unreachable).
 */
export async function swapFromWallet(
  client: Relay402Client,
  owner: SignerClient,
  parameters: WalletSwapParameters,
): Promise<WalletSwapResult> {
  const config = await getNetworkConfig(client, parameters.network);
  if (!config.swap) {
    throw new Relay402ClientError("unexpected_response", `swaps are not enabled on ${parameters.network}`);
  }
  const recipient = getAddress(parameters.recipient ?? parameters.wallet);
  const answer = await client.post<WalletSwapVerifyAnswer>("/wallet/swap/verify", {
    walletAddress: parameters.wallet,
    swap: {
      sellToken: parameters.sellToken,
      buyToken: parameters.buyToken,
      sellAmount: parameters.sellAmount.toString(),
      recipient,
      ...(parameters.slippageBps !== undefined ? { slippageBps: parameters.slippageBps } : {}),
      ...(parameters.minBuyAmount !== undefined ? { minBuyAmount: parameters.minBuyAmount.toString() } : {}),
    },
    paymentRequirements: { network: parameters.network },
  });
  if (!answer.isValid) {
    throw new Relay402ClientError(answer.invalidReason as Relay402ClientError["code"], answer.invalidMessage, {
      buyAmount: answer.buyAmount,
      minBuyAmount: answer.minBuyAmount,
    });
  }
  const verify = answer as WalletSwapVerifyResult;
  const signed = assertUserOpIsSwap(
    verify.userOp,
    verify.userOpHash,
    {
      sender: parameters.wallet,
      paymaster: config.contracts.paymaster,
      entryPoint: config.contracts.entryPoint,
      chainId: config.chainId,
      relayer: config.contracts.relayer,
      sellToken: parameters.sellToken,
      buyToken: parameters.buyToken,
      sellAmount: parameters.sellAmount,
      recipient,
      bound: parameters,
      fees: tokenOf(config, parameters.sellToken).fees,
      routers: config.swap.routers,
    },
    verify,
  );
  const settlement = await client.post<WalletSwapSettleResult>(
    "/wallet/swap/settle",
    await signedUserOp(owner, verify.userOp, verify.userOpHash),
    { idempotent: true },
  );
  return { verify, signed, settlement };
}
