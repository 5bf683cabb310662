import type { Address, Hex } from "viem";

/** Structured log sink; every line is one JSON object. */
export interface Logger {
  info(entry: Record<string, unknown>): void;
  warn(entry: Record<string, unknown>): void;
  error(entry: Record<string, unknown>): void;
}

export interface TransactionRequest {
  to: Address;
  data: Hex;
  value?: bigint;
  gas: bigint;
}

export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export interface PreparedTransaction extends Fees {
  hash: Hex;
  raw: Hex;
  from: Address;
  nonce: number;
  request: TransactionRequest;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
