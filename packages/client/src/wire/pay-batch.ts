import { type Address, encodeFunctionData } from "viem";
import { erc20Abi, relayerAbi } from "./abis.js";
import type { Call } from "./execution.js";

/**
 * The calls of every sponsored payment from a wallet (a payment and its fee, a deployment fee and its fundings):
 * `token.approve(relayer, total)`, then `relayer.payBatch` moving each amount from the wallet.
 */
export function payBatchCalls(batch: {
  token: Address;
  relayer: Address;
  payments: readonly { to: Address; amount: bigint }[];
}): Call[] {
  const total = batch.payments.reduce((sum, payment) => sum + payment.amount, 0n);
  return [
    {
      to: batch.token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [batch.relayer, total] }),
    },
    {
      to: batch.relayer,
      data: encodeFunctionData({
        abi: relayerAbi,
        functionName: "payBatch",
        args: [
          batch.token,
          batch.payments.map((payment) => payment.to),
          batch.payments.map((payment) => payment.amount),
        ],
      }),
    },
  ];
}
