import { payBatchCalls } from "@relay402/client/wire/pay-batch";
import { walletPaymentFee, withFee } from "@relay402/client/wire/wallet-fee";
import {
  MAX_WALLET_TRANSACTIONS,
  type WalletPaymentVerifyBodySchema,
  type WalletPaymentVerifyResponseSchema,
} from "@relay402/client/wire/wallet-schemas";
import type { Static } from "@sinclair/typebox";
import { type Address, getAddress, maxUint256 } from "viem";
import { invalid } from "../userops/invalid";
import { type IssueUserOpDeps, issueUserOp, verifiedAnswer } from "../userops/issue-user-op";
import type { UserOpNetwork } from "../userops/user-op-network";

export type WalletVerifyRequest = Pick<Static<typeof WalletPaymentVerifyBodySchema>, "walletAddress" | "transactions">;
export type WalletVerifyResponse = Static<typeof WalletPaymentVerifyResponseSchema>;

/** What settle needs to know about an issued payment besides the UserOp itself. */
export type WalletPaymentContext = {
  token: Address;
  transfers: { to: Address; amount: string }[];
  feeAmount: string;
  totalAmount: string;
};

/** The body rules the schema cannot express: one token, non-zero amounts, a token this network charges fees in. */
function parseTransfers(network: UserOpNetwork, request: WalletVerifyRequest) {
  const { transactions } = request;
  if (transactions.length === 0) throw invalid("transactions", "at least one transaction is required");
  if (transactions.length > MAX_WALLET_TRANSACTIONS) {
    throw invalid("transactions", `at most ${MAX_WALLET_TRANSACTIONS} transactions per batch`);
  }
  const token = getAddress(transactions[0]!.token);
  const transfers = transactions.map((transaction, index) => {
    if (getAddress(transaction.token) !== token) {
      throw invalid(`transactions.${index}.token`, "all transactions of a batch must use the same token");
    }
    const amount = BigInt(transaction.amount);
    if (amount === 0n) throw invalid(`transactions.${index}.amount`, "amount must be greater than zero");
    const to = getAddress(transaction.to);
    if (BigInt(to) === 0n) throw invalid(`transactions.${index}.to`, "recipient is the zero address");
    return { to, amount };
  });
  const tokenConfig = network.runtime.token(token);
  if (!tokenConfig)
    throw invalid("transactions.0.token", `token ${token} is not configured on ${network.runtime.name}`);
  const sum = transfers.reduce((total, transfer) => total + transfer.amount, 0n);
  const feeAmount = walletPaymentFee(sum, tokenConfig);
  const totalAmount = sum + feeAmount;
  if (totalAmount > maxUint256) throw invalid("transactions", "total amount exceeds uint256");
  return { token, transfers, feeAmount, totalAmount };
}

/**
 * /wallet/verify in the interface's order: deployed wallet, balance (one round trip with owner and nonce),
 * batch call with the fee, gas from the bundler, paymaster signature; the issue is remembered for settle.
 */
export async function verifyWalletPayment(
  deps: IssueUserOpDeps & { network: UserOpNetwork },
  request: WalletVerifyRequest,
): Promise<WalletVerifyResponse> {
  const { network } = deps;
  const wallet = getAddress(request.walletAddress);
  const plan = parseTransfers(network, request);
  const context: WalletPaymentContext = {
    token: plan.token,
    transfers: plan.transfers.map((transfer) => ({ to: transfer.to, amount: transfer.amount.toString() })),
    feeAmount: plan.feeAmount.toString(),
    totalAmount: plan.totalAmount.toString(),
  };
  const issued = await issueUserOp(deps, {
    network,
    sender: wallet,
    spends: { token: plan.token, amount: plan.totalAmount },
    calls: payBatchCalls({
      token: plan.token,
      relayer: network.relayer,
      payments: withFee(plan.transfers, { to: network.runtime.config.feeRecipient, amount: plan.feeAmount }),
    }),
    kind: "payment",
    context,
    fields: { sender: "walletAddress", balance: "transactions", calls: "transactions" },
  });
  return verifiedAnswer(issued, context.feeAmount, context.totalAmount);
}
