import { hexToBigInt, type PublicClient } from "viem";
import type { Logger } from "../logger";
import { toReadError } from "./errors";
import type { Fees } from "./types";

export interface FeeOracle {
  /** Network fees, capped; one shared RPC round per `ttlMs` whatever the number of callers. */
  current(): Promise<Fees>;
  /**
   * Fees for a same-nonce replacement: at least +12.5% on both fields (nodes demand +10%), or the
   * network fee if higher. Null when the cap leaves no room for a bump the node would accept.
   */
  replacementFor(previous: Fees): Promise<Fees | null>;
  /**
   * The latest block as of the last fee read (read in the same batch, so at most `ttlMs` old): what a simulation on
   * "latest" takes its next block's time and number from. Undefined before the first read.
   */
  latestHead(): BlockHead | undefined;
}

export type BlockHead = { number: bigint; timestamp: bigint };

export interface FeeOracleConfig {
  client: PublicClient;
  maxFeePerGasCap: bigint;
  ttlMs?: number;
  logger: Logger;
}

const bumped = (value: bigint) => value + (value + 7n) / 8n; // ceil(value * 1.125)
const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);

type FeeHistory = { baseFeePerGas: `0x${string}`[] };
type RpcHead = { number: `0x${string}`; timestamp: `0x${string}` } | null;

export function createFeeOracle({ client, maxFeePerGasCap, ttlMs = 1_000, logger }: FeeOracleConfig): FeeOracle {
  let cached: { fees: Fees; at: number } | undefined;
  let inflight: Promise<Fees> | undefined;
  let head: BlockHead | undefined;

  async function fetchNetworkFees(): Promise<Fees> {
    // baseFeePerGas[last] of a one-block history is the next block's base fee; with the latest block's head (for
    // latestHead), three calls, batched.
    const [history, priority, latest] = await Promise.all([
      client.request({ method: "eth_feeHistory", params: ["0x1", "latest", []] }) as Promise<FeeHistory>,
      client.request({ method: "eth_maxPriorityFeePerGas" }),
      client.request({ method: "eth_getBlockByNumber", params: ["latest", false] }) as Promise<RpcHead>,
    ]).catch((error) => {
      throw toReadError(error);
    });
    if (latest) {
      const next = { number: hexToBigInt(latest.number), timestamp: hexToBigInt(latest.timestamp) };
      if (!head || next.number >= head.number) head = next;
    }
    const nextBaseFee = hexToBigInt(history.baseFeePerGas.at(-1) ?? "0x0");
    const maxPriorityFeePerGas = hexToBigInt(priority);
    return { maxFeePerGas: nextBaseFee * 2n + maxPriorityFeePerGas, maxPriorityFeePerGas };
  }

  function capped(fees: Fees): Fees {
    if (fees.maxFeePerGas <= maxFeePerGasCap) return fees;
    logger.warn({
      event: "network_fee_capped",
      networkMaxFeePerGas: fees.maxFeePerGas.toString(),
      maxFeePerGasCap: maxFeePerGasCap.toString(),
    });
    return { maxFeePerGas: maxFeePerGasCap, maxPriorityFeePerGas: min(fees.maxPriorityFeePerGas, maxFeePerGasCap) };
  }

  async function current(): Promise<Fees> {
    if (cached && Date.now() - cached.at < ttlMs) return cached.fees;
    inflight ??= fetchNetworkFees()
      .then((fees) => {
        const result = capped(fees);
        cached = { fees: result, at: Date.now() };
        return result;
      })
      .finally(() => {
        inflight = undefined;
      });
    return inflight;
  }

  async function replacementFor(previous: Fees): Promise<Fees | null> {
    const network = await current();
    const maxFeePerGas = min(max(bumped(previous.maxFeePerGas), network.maxFeePerGas), maxFeePerGasCap);
    const maxPriorityFeePerGas = min(
      max(bumped(previous.maxPriorityFeePerGas), network.maxPriorityFeePerGas),
      maxFeePerGasCap,
    );
    const acceptable = (next: bigint, prev: bigint) => next * 10n >= prev * 11n && next > prev;
    if (!acceptable(maxFeePerGas, previous.maxFeePerGas)) return null;
    // A zero tip cannot be bumped by a percentage; any increase is enough then.
    if (previous.maxPriorityFeePerGas > 0n && !acceptable(maxPriorityFeePerGas, previous.maxPriorityFeePerGas))
      return null;
    return { maxFeePerGas, maxPriorityFeePerGas: min(maxPriorityFeePerGas, maxFeePerGas) };
  }

  return { current, replacementFor, latestHead: () => head };
}
