import type { WalletPaymentSettleResponseSchema } from "@relay402/client/wire/wallet-schemas";
import type { Static } from "@sinclair/typebox";
import type { Address } from "viem";
import { createUserOpSettler, type SettleDeps } from "../userops/settle-user-op";
import { assertBalanceStillCovers } from "../userops/wallet-state";
import { transfersIn } from "./transfers";
import type { WalletPaymentContext } from "./verify-wallet-payment";

export type WalletSettleResponse = Static<typeof WalletPaymentSettleResponseSchema>;

/** /wallet/settle: the kernel's settle of a "payment" UserOp; the answer lists the transfers out of the wallet. */
export const createWalletPaymentSettler = (deps: SettleDeps) =>
  createUserOpSettler<WalletSettleResponse, WalletPaymentContext>(deps, {
    kind: "payment",
    issuedBy: "/wallet/verify",
    // A wallet that no longer holds the total gets nothing claimed or sent: the paymaster would pay for a revert.
    beforeSend({ network, record, context }) {
      return assertBalanceStillCovers(network.runtime.client, {
        wallet: record.sender as Address,
        token: context.token,
        amount: BigInt(context.totalAmount),
      });
    },
    respond: ({ hash, record }, outcome) => ({
      success: true,
      txHash: outcome.transactionHash,
      userOpHash: hash,
      payments: transfersIn(outcome.logs, record.sender as Address),
    }),
  });
