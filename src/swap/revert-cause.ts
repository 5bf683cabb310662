import { relayerSwapAbi } from "@relay402/client/wire/swap/abis";
import { decodeErrorResult, type Hex, type PublicClient } from "viem";
import { revertDataOf } from "../chain/errors";

/**
 * Who made a mined swap revert. "market": the route paid less than the signed minimum (the relayer's
 * InsufficientOutput, or a router's own minimum check), which anyone moving the pool between our simulation and
 * the block can cause. "payer": anything else — its balance, its allowance, its own code, or a revert we cannot
 * read — which stays held against the payer on every flow.
 */
export type SwapRevertCause = "market" | "payer";

/** A router's minimum check: V2 routers' "INSUFFICIENT_OUTPUT_AMOUNT", SwapRouter02's "Too little received". */
const ROUTER_MINIMUM = /INSUFFICIENT_OUTPUT_AMOUNT|Too little received/i;

/** Whether a decoded revert is a price below the minimum (the verify answer PRICE_MOVED and the market cause). */
export function isPriceMove(name: string, args: readonly unknown[]): boolean {
  if (name === "InsufficientOutput") return true;
  return name === "Error" && ROUTER_MINIMUM.test(String(args[0]));
}

/** The cause of a mined swap's revert from its revert data (the top call's output); unreadable data is the payer's. */
export function swapRevertCause(data: Hex | undefined): SwapRevertCause {
  if (!data || data === "0x") return "payer";
  try {
    const decoded = decodeErrorResult({ abi: relayerSwapAbi, data });
    return isPriceMove(decoded.errorName, (decoded.args ?? []) as readonly unknown[]) ? "market" : "payer";
  } catch {
    return "payer";
  }
}

/** The top frame of `debug_traceTransaction`'s callTracer: a failed call's output is its revert data. */
type CallFrame = { output?: Hex; error?: string };

/**
 * The revert data of our mined, reverted transaction: its trace, as it ran in its block (after whatever was mined
 * before it there). A node without `debug_traceTransaction` replays the call on the state before its block, which
 * misses a front-run in the same block: then nothing reverts, nothing is read, and the revert stays the payer's.
 */
export async function minedRevertData(
  client: PublicClient,
  mined: { transactionHash: Hex; blockNumber: bigint },
): Promise<Hex | undefined> {
  try {
    const frame = (await client.request({
      method: "debug_traceTransaction",
      params: [mined.transactionHash, { tracer: "callTracer" }],
    } as never)) as CallFrame;
    if (frame?.error) return frame.output;
  } catch {
    // No tracing on this node: replayed below.
  }
  try {
    const transaction = await client.getTransaction({ hash: mined.transactionHash });
    if (!transaction.to) return undefined;
    await client.call({
      account: transaction.from,
      to: transaction.to,
      data: transaction.input,
      gas: transaction.gas,
      blockNumber: mined.blockNumber - 1n,
    });
    return undefined;
  } catch (error) {
    return revertDataOf(error);
  }
}
