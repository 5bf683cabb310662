import { type Hex, keccak256, type TransactionReceipt } from "viem";
import type { NetworkRuntime } from "../chain/networks";
import type { EoaSettlement } from "../db/schema";

/**
 * The receipt of a sent settlement, whichever of its transactions was mined: the stored hash is the latest
 * fee-bumped replacement, but the original (the stored raw transaction) may be the one that made it.
 * The raw transaction is re-broadcast first, in case the node never got it (a crash or an RPC failure).
 */
export async function settlementReceipt(
  network: NetworkRuntime,
  record: EoaSettlement,
  timeoutMs: number,
): Promise<TransactionReceipt | null> {
  const hashes = new Set<Hex>();
  if (record.txHash) hashes.add(record.txHash as Hex);
  if (record.rawTx) {
    hashes.add(keccak256(record.rawTx as Hex));
    await network.executor.rebroadcast(record.rawTx as Hex).catch(() => undefined);
  }
  return new Promise((resolve) => {
    let waiting = hashes.size;
    if (waiting === 0) resolve(null);
    for (const hash of hashes) {
      network.executor
        .waitForReceipt(hash, timeoutMs)
        .catch(() => null)
        .then((receipt) => {
          waiting -= 1;
          if (receipt) resolve(receipt);
          else if (waiting === 0) resolve(null);
        });
    }
  });
}
