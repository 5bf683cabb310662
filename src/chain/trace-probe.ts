import { BaseError, type Hex, type PublicClient, RpcRequestError } from "viem";

/** What nodes and providers answer when they do not serve a method (not: that the transaction is unknown). */
const METHOD_REFUSED = /method|not supported|unsupported|not available|whitelist|not allowed|forbidden|disabled/i;
/** JSON-RPC's "method not found" and EIP-1474's "method not supported". */
const METHOD_REFUSED_CODES = new Set([-32601, -32004]);
const UNKNOWN_TRANSACTION = `0x${"00".repeat(32)}` as Hex;

const traceOf = (client: PublicClient, hash: Hex) =>
  client.request({ method: "debug_traceTransaction", params: [hash, { tracer: "callTracer" }] } as never);

/** Whether a failed debug_traceTransaction of an unknown transaction says the method itself is refused. */
export function refusesTracing(error: unknown): boolean {
  const rpc = error instanceof BaseError ? error.walk((cause) => cause instanceof RpcRequestError) : null;
  // No JSON-RPC answer at all (an HTTP 403 or 405, a timeout): nothing will be traced through this node.
  if (!(rpc instanceof RpcRequestError)) return true;
  return METHOD_REFUSED_CODES.has(rpc.code) || METHOD_REFUSED.test(rpc.details);
}

/**
 * Whether the network's node traces mined transactions (`debug_traceTransaction` with the callTracer), which is how
 * a swap's revert is read as it ran in its block, after whatever was mined before it there (src/swap/revert-cause.ts).
 * Most public BSC and Base endpoints do not. The latest block's last transaction is traced when there is one (its
 * answer is the node's real behaviour); a chain with an empty latest block gets the trace of a transaction that
 * does not exist, whose error tells a refused method from an unknown transaction.
 */
export async function tracesTransactions(client: PublicClient): Promise<boolean> {
  const block = await client.getBlock({ blockTag: "latest" }).catch(() => null);
  const hash = block?.transactions.at(-1);
  if (hash) {
    try {
      await traceOf(client, hash);
      return true;
    } catch {
      return false;
    }
  }
  try {
    await traceOf(client, UNKNOWN_TRANSACTION);
    return true;
  } catch (error) {
    return !refusesTracing(error);
  }
}
