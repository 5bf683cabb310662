import { type Chain, createPublicClient, defineChain, fallback, http, type PublicClient, type Transport } from "viem";

export interface RpcTransportOptions {
  /** Per request and per URL. */
  timeoutMs?: number;
  /** Requests issued in the same tick travel as one JSON-RPC batch (the receipt poller relies on it). */
  batch?: boolean;
}

/** Tries the URLs in order: a dead first URL fails over to the next one. */
export function createRpcTransport(urls: string[], options: RpcTransportOptions = {}): Transport {
  if (urls.length === 0) throw new Error("at least one RPC URL is required");
  const { timeoutMs = 10_000, batch = true } = options;
  return fallback(
    urls.map((url) => http(url, { retryCount: 0, timeout: timeoutMs, batch })),
    { rank: false, retryCount: 1 },
  );
}

export interface ChainClientConfig extends RpcTransportOptions {
  chainId: number;
  rpcUrls: string[];
}

export function defineRpcChain(chainId: number, rpcUrls: string[]): Chain {
  return defineChain({
    id: chainId,
    name: `chain-${chainId}`,
    nativeCurrency: { name: "Native", symbol: "NATIVE", decimals: 18 },
    rpcUrls: { default: { http: rpcUrls } },
  });
}

export function createChainClient({ chainId, rpcUrls, ...options }: ChainClientConfig): PublicClient {
  return createPublicClient({
    chain: defineRpcChain(chainId, rpcUrls),
    transport: createRpcTransport(rpcUrls, options),
  });
}
