import { type Address, type Hex, isAddressEqual, parseEventLogs, type TransactionReceipt } from "viem";
import type { NetworkRuntime } from "../chain/networks";
import type { X402Settlement } from "../db/schema";
import type { ChainJudgement } from "../settlement/authorization-settlement";
import { eip3009TokenAbi } from "./eip3009";

/** How far back a foreign execution of an authorization is looked for. */
const LOOKBACK_BLOCKS = 10_000n;

/** Whether the token shows the record's EIP-3009 nonce used (by this payment, another, or a cancel). */
export const eip3009AuthorizationUsed = (network: NetworkRuntime, record: X402Settlement) =>
  network.client.readContract({
    address: record.contract as Address,
    abi: eip3009TokenAbi,
    functionName: "authorizationState",
    args: [record.payer as Address, record.nonce as Hex],
  });

/**
 * Anyone may submit a signed authorization: another transaction counts only if it moved exactly this payment,
 * Transfer(from, to, value) on the token.
 */
export async function judgeEip3009(
  network: NetworkRuntime,
  record: X402Settlement,
  reverted: TransactionReceipt | null,
): Promise<ChainJudgement> {
  if (!(await eip3009AuthorizationUsed(network, record))) return {};
  const token = record.contract as Address;
  const toBlock = reverted?.blockNumber ?? (await network.client.getBlockNumber());
  const [log] = await network.client.getContractEvents({
    address: token,
    abi: eip3009TokenAbi,
    eventName: "AuthorizationUsed",
    args: { authorizer: record.payer as Address, nonce: record.nonce as Hex },
    fromBlock: toBlock > LOOKBACK_BLOCKS ? toBlock - LOOKBACK_BLOCKS : 0n,
    toBlock,
  });
  const foreign = log ? await network.client.getTransactionReceipt({ hash: log.transactionHash }) : null;
  const paid = foreign
    ? parseEventLogs({ abi: eip3009TokenAbi, eventName: "Transfer", logs: foreign.logs }).some(
        (transfer) =>
          isAddressEqual(transfer.address, token) &&
          isAddressEqual(transfer.args.from, record.payer as Address) &&
          isAddressEqual(transfer.args.to, record.recipient as Address) &&
          transfer.args.value === BigInt(record.amount),
      )
    : false;
  if (foreign && paid) return { paid: foreign };
  return { usedBy: "the nonce was used or canceled without this transfer" };
}
