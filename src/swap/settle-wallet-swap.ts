import { relayerSwapAbi } from "@relay402/client/wire/swap/abis";
import type { WalletSwapSettleResponseSchema } from "@relay402/client/wire/swap/schemas";
import type { Static } from "@sinclair/typebox";
import { type Address, getAddress, isAddressEqual } from "viem";
import { ApiError } from "../errors";
import { eventsIn } from "../userops/events";
import { type ChainLog, revertReasonIn } from "../userops/outcome";
import { createUserOpSettler, type SettleDeps, type SettlingUserOp } from "../userops/settle-user-op";
import { assertBalanceStillCovers } from "../userops/wallet-state";
import { transfersIn } from "../wallets/transfers";
import { swapRevertCause, swapRevertCount } from "./revert-cause";
import { swapRefusalOf, type WalletSwapContext } from "./verify-wallet-swap";

export type WalletSwapSettleResponse = Static<typeof WalletSwapSettleResponseSchema>;
export type WalletSwapResult = WalletSwapSettleResponse["swap"];

/**
 * The relayer's SwapExecuted of `wallet` among one UserOp's own logs (never another UserOp's in the same bundle):
 * what the recipient actually received, measured by the relayer at the recipient. Null when absent.
 */
export function walletSwapIn(logs: readonly ChainLog[], relayer: Address, wallet: Address): WalletSwapResult | null {
  const events = eventsIn(logs, relayerSwapAbi, { emitter: relayer, eventName: "SwapExecuted" });
  const event = events.find((candidate) => isAddressEqual(candidate.args.payer, wallet));
  if (!event) return null;
  return {
    sellToken: getAddress(event.args.sellToken),
    buyToken: getAddress(event.args.buyToken),
    sellAmount: event.args.sellAmount.toString(),
    fee: event.args.fee.toString(),
    buyAmount: event.args.buyAmount.toString(),
    recipient: getAddress(event.args.recipient),
  };
}

/**
 * Before the first send: the wallet still holds sellAmount (then the kernel simulates the batch again as the
 * EntryPoint will run it, and a route that no longer pays the signed minimum is refused by refuseRevert below).
 * Otherwise 400 and nothing is sent (the paymaster would pay for a revert); the UserOp stays issued and may be
 * settled once the price is back.
 */
async function stillPays({ network, record, context }: SettlingUserOp<WalletSwapContext>): Promise<void> {
  await assertBalanceStillCovers(network.runtime.client, {
    wallet: record.sender as Address,
    token: context.sellToken,
    amount: BigInt(context.sellAmount),
  });
}

/** /wallet/swap/settle: the kernel's settle of a "swap" UserOp, answered from the relayer's SwapExecuted. */
export const createWalletSwapSettler = (deps: SettleDeps) =>
  createUserOpSettler<WalletSwapSettleResponse, WalletSwapContext>(deps, {
    kind: "swap",
    issuedBy: "/wallet/swap/verify",
    beforeSend: stillPays,
    // A price moved below the minimum between our check and the bundle, or a revert without data, refuses only the
    // owner's swaps, for a while; a cause read as the owner's falls to the kernel's count (every flow).
    countRevert:
      ({ network }) =>
      (outcome) => {
        const cause = swapRevertCause(revertReasonIn(outcome, network.entryPoint));
        return cause === "payer" ? null : swapRevertCount(cause, { allFlows: "owner", swapsOnly: "swap_owner" });
      },
    refuseRevert: (revert, { record }) => {
      const refusal = swapRefusalOf(revert);
      return new ApiError(refusal.code, refusal.message, { userOpHash: record.userOpHash });
    },
    respond: ({ hash, network, record }, outcome) => {
      const wallet = getAddress(record.sender);
      const swap = walletSwapIn(outcome.logs, network.relayer, wallet);
      // The UserOp executed, so swapBatch succeeded and emitted its event; its absence is a bug here.
      if (!swap) throw new Error(`no SwapExecuted in the logs of UserOp ${hash}`);
      return {
        success: true,
        txHash: outcome.transactionHash,
        userOpHash: hash,
        payments: transfersIn(outcome.logs, wallet),
        swap,
      };
    },
  });
