import {
  type Address,
  type Hex,
  isAddressEqual,
  parseTransaction,
  recoverTransactionAddress,
  type TransactionReceipt,
} from "viem";
import type { NetworkRuntime } from "../chain/networks";

/**
 * Where a funding the durable sender calls `superseded` went (none of its journaled hashes was mined, yet its
 * executor's nonce was used): the transaction of that nonce as mined. A fee-bumped replacement of the funding goes to
 * the same payer with the same value; finding one means the payer was paid, whatever hash we kept. The block is
 * found by bisecting the executor's nonce over block numbers, which needs the state of past blocks: a pruned node
 * that no longer has it answers "unknown", and the record is kept rather than released.
 */
export type MinedNonce =
  | { kind: "funding"; receipt: TransactionReceipt }
  /** Another transaction of the executor used the nonce: the payer got nothing. */
  | { kind: "other" }
  | { kind: "unknown" };

/** How far before the record's creation the bisection starts (the node's clock and block times are not ours). */
const SLACK_BLOCKS = 64n;

export async function minedAtFundingNonce(
  network: NetworkRuntime,
  funding: { rawTx: Hex; payer: Address; value: bigint; createdAt: string },
): Promise<MinedNonce> {
  try {
    const executor = await recoverTransactionAddress({ serializedTransaction: funding.rawTx as never });
    const { nonce } = parseTransaction(funding.rawTx);
    if (nonce === undefined) return { kind: "unknown" };
    const client = network.client;
    const countAt = (blockNumber: bigint) => client.getTransactionCount({ address: executor, blockNumber });
    // Not viem's cached block number: the block that mined the funding may be seconds old.
    const latest = await client.getBlockNumber({ cacheTime: 0 });
    if ((await countAt(latest)) <= nonce) return { kind: "unknown" };
    const elapsed = BigInt(Math.max(0, Date.now() - Date.parse(funding.createdAt)));
    const blocks = (2n * elapsed) / BigInt(Math.max(1, network.config.blockTimeMs)) + SLACK_BLOCKS;
    let low = latest > blocks ? latest - blocks : 0n;
    if ((await countAt(low)) > nonce) low = 0n;
    // The first block after which the executor's count passed the nonce: the one that mined it.
    let high = latest;
    while (low < high) {
      const middle = (low + high) / 2n;
      if ((await countAt(middle)) > nonce) high = middle;
      else low = middle + 1n;
    }
    const block = await client.getBlock({ blockNumber: high, includeTransactions: true });
    const mined = block.transactions.find((tx) => isAddressEqual(tx.from, executor) && tx.nonce === nonce);
    if (!mined) return { kind: "unknown" };
    if (!mined.to || !isAddressEqual(mined.to, funding.payer) || mined.value !== funding.value)
      return { kind: "other" };
    return { kind: "funding", receipt: await client.getTransactionReceipt({ hash: mined.hash }) };
  } catch {
    return { kind: "unknown" };
  }
}
