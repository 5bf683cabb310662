import type { Address, Hex, PublicClient } from "viem";
import { type CallBatcher, createCallBatcher } from "./call-batch";

/** The network client's timeout (src/chain/rpc.ts), for the batch's own fetch. */
const RPC_TIMEOUT_MS = 10_000;

type BatchedNetwork = { client: PublicClient; config: { rpcUrls: readonly string[] } };

/** Each network's batcher of verify eth_calls (call-batch.ts), to its first RPC URL, made on first use. */
const batchers = new WeakMap<BatchedNetwork, CallBatcher>();

export function callBatcherOf(network: BatchedNetwork): CallBatcher {
  let batcher = batchers.get(network);
  if (!batcher) {
    batcher = createCallBatcher(network.config.rpcUrls[0] as string, RPC_TIMEOUT_MS);
    batchers.set(network, batcher);
  }
  return batcher;
}

/**
 * One eth_call at the latest block (with block time `time` when given), encoded by its caller, in the verifies'
 * own batch; if that gives no answer, through viem's client (its failover, its error). The verifies of EOA and x402
 * payments share the batch, so a verify costs a fraction of a round trip under load.
 */
export function batchedCall(network: BatchedNetwork, to: Address | undefined, data: Hex, time?: bigint): Promise<Hex> {
  const viaClient = () => {
    const request = (to === undefined ? { data } : { to, data }) as never;
    const params =
      time === undefined ? [request, "latest"] : [request, "latest", {}, { time: `0x${time.toString(16)}` }];
    return network.client.request({ method: "eth_call", params: params as never }) as Promise<Hex>;
  };
  return callBatcherOf(network).call(to, data, time).catch(viaClient);
}
