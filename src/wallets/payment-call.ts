import { type Address, encodeFunctionData, type Hex } from "viem";
import { erc20Abi, relayerAbi } from "../chain/abis";
import { encodeBatchExecution } from "../userops/execution";

export type WalletPaymentPlan = {
  token: Address;
  relayer: Address;
  transfers: readonly { to: Address; amount: bigint }[];
  feeRecipient: Address;
  feeAmount: bigint;
  totalAmount: bigint;
};

/** One ERC-7579 batch: `approve(relayer, total)`, then `relayer.payBatch` moving every transfer and the fee. */
export function walletPaymentCallData(plan: WalletPaymentPlan): Hex {
  const recipients = plan.transfers.map((transfer) => transfer.to);
  const amounts = plan.transfers.map((transfer) => transfer.amount);
  // A zero fee (feeBps 0 and minFee 0) would only add an empty Transfer to the payment.
  if (plan.feeAmount > 0n) {
    recipients.push(plan.feeRecipient);
    amounts.push(plan.feeAmount);
  }
  return encodeBatchExecution([
    {
      to: plan.token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [plan.relayer, plan.totalAmount] }),
    },
    {
      to: plan.relayer,
      data: encodeFunctionData({ abi: relayerAbi, functionName: "payBatch", args: [plan.token, recipients, amounts] }),
    },
  ]);
}
