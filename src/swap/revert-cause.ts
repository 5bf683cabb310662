import { relayerSwapAbi } from "@relay402/client/wire/swap/abis";
import { decodeErrorResult, type Hex, type PublicClient } from "viem";
import { revertDataOf } from "../chain/errors";

/**
 * Who made a mined swap revert. "market": the route paid less than the signed minimum (the relayer's
 * InsufficientOutput, or a router's own minimum check), which anyone moving the pool between our simulation and
 * the block can cause. "unread": no revert data could be read (a node without tracing whose replay before the
 * block does not revert, as after a same-block front-run; or a revert without data, as out of gas after a
 * front-run moved the price across more ticks), so nothing shows it was the payer. "payer": data that names
 * another cause — its balance, its allowance, its own code — which is held against the payer on every flow.
 */
export type SwapRevertCause = "market" | "unread" | "payer";

/**
 * Which counter a swap's revert goes to: only a cause read as the payer's refuses its every flow; the market's
 * and an unread one refuse only its swaps, so that nobody can get a victim's payments refused by moving a pool.
 */
export function swapRevertCount<Kind extends string>(
  cause: SwapRevertCause,
  kinds: { allFlows: Kind; swapsOnly: Kind },
): { kind: Kind; reason: string } {
  if (cause === "payer") return { kind: kinds.allFlows, reason: "swap reverted" };
  return {
    kind: kinds.swapsOnly,
    reason: cause === "market" ? "swap reverted: price moved" : "swap reverted: cause unread",
  };
}

/** A router's minimum check: V2 routers' "INSUFFICIENT_OUTPUT_AMOUNT", SwapRouter02's "Too little received". */
const ROUTER_MINIMUM = /INSUFFICIENT_OUTPUT_AMOUNT|Too little received/i;

/** Whether a decoded revert is a price below the minimum (the verify answer PRICE_MOVED and the market cause). */
export function isPriceMove(name: string, args: readonly unknown[]): boolean {
  if (name === "InsufficientOutput") return true;
  return name === "Error" && ROUTER_MINIMUM.test(String(args[0]));
}

/**
 * The cause of a mined swap's revert from its revert data (the top call's output): none is "unread"; data the
 * relayer's ABI does not decode (a contract payer's own error) is the payer's.
 */
export function swapRevertCause(data: Hex | undefined): SwapRevertCause {
  if (!data || data === "0x") return "unread";
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
 * misses a front-run in the same block: then nothing reverts and nothing is read (the cause is "unread").
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
