import type { Address, Hex } from "viem";
import type { RpcUserOp } from "./user-operation";

export class BundlerError extends Error {
  override name = "BundlerError";
  constructor(
    message: string,
    readonly rpcCode?: number,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** A bundler's answer to a UserOp it already holds (Alto: "Already known"): the UserOp is in flight, not rejected. */
export const isAlreadyKnown = (error: unknown) => error instanceof BundlerError && /already known/i.test(error.message);

export type GasEstimate = {
  preVerificationGas: bigint;
  verificationGasLimit: bigint;
  callGasLimit: bigint;
  paymasterVerificationGasLimit: bigint;
  paymasterPostOpGasLimit: bigint;
};

export type UserOpReceipt = {
  userOpHash: Hex;
  success: boolean;
  actualGasUsed: bigint;
  actualGasCost: bigint;
  receipt: {
    transactionHash: Hex;
    blockNumber: bigint;
    logs: { address: Address; topics: Hex[]; data: Hex; logIndex: Hex | number }[];
  };
  logs: { address: Address; topics: Hex[]; data: Hex }[];
};

/** The narrow port to an ERC-4337 bundler (Alto speaks it, so does any other v0.7 bundler). */
export type Bundler = {
  estimateGas(op: RpcUserOp): Promise<GasEstimate>;
  gasPrice(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>;
  send(op: RpcUserOp): Promise<Hex>;
  receipt(userOpHash: Hex): Promise<UserOpReceipt | null>;
};

export function createBundler(url: string, entryPoint: Address, timeoutMs = 10_000): Bundler {
  let id = 0;
  async function call<T>(method: string, params: unknown[]): Promise<T> {
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new BundlerError(`bundler unreachable (${(error as Error).name})`);
    }
    const json = (await response.json().catch(() => null)) as {
      result?: T;
      error?: { code: number; message: string; data?: unknown };
    } | null;
    if (!json) throw new BundlerError(`bundler answered HTTP ${response.status} without JSON`);
    if (json.error) throw new BundlerError(json.error.message, json.error.code, json.error.data);
    return json.result as T;
  }
  return {
    async estimateGas(op) {
      const result = await call<Record<string, Hex | undefined>>("eth_estimateUserOperationGas", [op, entryPoint]);
      const big = (value: Hex | undefined) => (value ? BigInt(value) : 0n);
      return {
        preVerificationGas: big(result.preVerificationGas),
        verificationGasLimit: big(result.verificationGasLimit),
        callGasLimit: big(result.callGasLimit),
        paymasterVerificationGasLimit: big(result.paymasterVerificationGasLimit),
        paymasterPostOpGasLimit: big(result.paymasterPostOpGasLimit),
      };
    },
    async gasPrice() {
      const result = await call<{ fast: { maxFeePerGas: Hex; maxPriorityFeePerGas: Hex } }>(
        "pimlico_getUserOperationGasPrice",
        [],
      );
      return {
        maxFeePerGas: BigInt(result.fast.maxFeePerGas),
        maxPriorityFeePerGas: BigInt(result.fast.maxPriorityFeePerGas),
      };
    },
    send: (op) => call<Hex>("eth_sendUserOperation", [op, entryPoint]),
    async receipt(userOpHash) {
      type Raw = {
        success: boolean;
        userOpHash: Hex;
        actualGasUsed: Hex;
        actualGasCost: Hex;
        logs: UserOpReceipt["logs"];
        receipt: Omit<UserOpReceipt["receipt"], "blockNumber"> & { blockNumber: Hex };
      };
      const result = await call<Raw | null>("eth_getUserOperationReceipt", [userOpHash]);
      if (!result) return null;
      return {
        ...result,
        actualGasUsed: BigInt(result.actualGasUsed),
        actualGasCost: BigInt(result.actualGasCost),
        receipt: { ...result.receipt, blockNumber: BigInt(result.receipt.blockNumber) },
      };
    },
  };
}

/** Polls for the receipt of a sent UserOp; null when `timeoutMs` passes first. */
export async function waitForUserOpReceipt(bundler: Bundler, hash: Hex, timeoutMs: number, intervalMs = 200) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const receipt = await bundler.receipt(hash).catch(() => null);
    if (receipt) return receipt;
    await Bun.sleep(intervalMs);
  }
  return null;
}
