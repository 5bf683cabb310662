import type { Address, Hex } from "viem";

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
