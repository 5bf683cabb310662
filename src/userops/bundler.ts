import type { RpcUserOp } from "@relay402/client/wire/user-operation";
import type { Address, Hex } from "viem";
import { Relay402Error } from "../errors";

/** Base of every bundler failure; the port classifies each answer once, so nothing above it reads a message. */
export class BundlerError extends Relay402Error {
  override name = "BundlerError";
}

/** No answer (transport failure, or an answer that is not JSON-RPC): the request may not have arrived. */
export class BundlerUnreachableError extends BundlerError {
  override name = "BundlerUnreachableError";
}

/** The request was sent and no answer came in time: the bundler may hold the UserOp. */
export class BundlerTimeoutError extends BundlerUnreachableError {
  override name = "BundlerTimeoutError";
}

/** The bundler already holds this very UserOp (sent before, its answer lost): in flight, not rejected. */
export class UserOpAlreadyKnownError extends BundlerError {
  override name = "UserOpAlreadyKnownError";
}

/**
 * The bundler refused the request with a JSON-RPC error; `aaCode` is the EntryPoint's code (AA25, …) if it gave one,
 * `quotedData` the hex data (4 bytes or more) it quoted in its message or error data: a failed estimate quotes the
 * calls' revert data there, whose selector a flow may know.
 */
export class BundlerRejectedError extends BundlerError {
  override name = "BundlerRejectedError";
  readonly aaCode: string | undefined;
  readonly quotedData: Hex[];
  constructor(
    message: string,
    readonly rpcCode: number,
    readonly data?: unknown,
  ) {
    super(message);
    this.aaCode = /\b(AA\d\d)\b/.exec(message)?.[1];
    const quoted = `${message} ${data === undefined ? "" : JSON.stringify(data)}`;
    this.quotedData = [...quoted.matchAll(/0x[0-9a-fA-F]{8,}/g)].map((match) => match[0].toLowerCase() as Hex);
  }
}

/**
 * One JSON-RPC error answer to its class. Alto 0.0.20 answers "Already known" with -32602, the code of every
 * field error, so the message decides that case here, and only here.
 */
export function classifyBundlerError(error: { code: number; message: string; data?: unknown }): BundlerError {
  if (/already known/i.test(error.message)) return new UserOpAlreadyKnownError(error.message);
  return new BundlerRejectedError(error.message, error.code, error.data);
}

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
      const name = (error as Error).name;
      if (name === "TimeoutError") throw new BundlerTimeoutError("bundler did not answer in time", { cause: error });
      throw new BundlerUnreachableError(`bundler unreachable (${name})`, { cause: error });
    }
    const json = (await response.json().catch(() => null)) as {
      result?: T;
      error?: { code: number; message: string; data?: unknown };
    } | null;
    if (!json) throw new BundlerUnreachableError(`bundler answered HTTP ${response.status} without JSON`);
    if (json.error) throw classifyBundlerError(json.error);
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

/**
 * Polls for the receipt of a sent UserOp; null when `timeoutMs` passes first. The first pauses are short (25 ms,
 * doubling up to `intervalMs`): a UserOp is often bundled and mined within a few tens of ms on a fast chain, and
 * a fixed sleep would add up to a whole interval to every wait.
 */
export async function waitForUserOpReceipt(bundler: Bundler, hash: Hex, timeoutMs: number, intervalMs = 200) {
  const deadline = Date.now() + timeoutMs;
  let pause = Math.min(25, intervalMs);
  while (Date.now() < deadline) {
    const receipt = await bundler.receipt(hash).catch(() => null);
    if (receipt) return receipt;
    await Bun.sleep(pause);
    pause = Math.min(pause * 2, intervalMs);
  }
  return null;
}
