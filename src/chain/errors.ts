import { BaseError, type Hex, RpcRequestError } from "viem";
import { Relay402Error } from "../errors";

/** Base of every error the chain layer throws: a short message, a stable code and the details. */
export class ChainError extends Relay402Error {
  readonly code: string;
  readonly details: string | undefined;

  constructor(code: string, message: string, options: { details?: string; cause?: unknown } = {}) {
    super(message, {
      cause: options.cause,
      message: options.details ? `${message}\n\nDetails: ${options.details}` : message,
    });
    this.name = new.target.name;
    this.code = code;
    this.details = options.details;
  }
}

/** No RPC endpoint answered: the request may or may not have reached a node. */
export class RpcUnavailableError extends ChainError {
  constructor(options: { details?: string; cause?: unknown } = {}) {
    super("RPC_UNAVAILABLE", "No RPC endpoint answered.", options);
  }
}

/** A node answered and refused the transaction (insufficient funds, fee too low, ...). */
export class BroadcastRejectedError extends ChainError {
  readonly hash: Hex;
  constructor(hash: Hex, options: { details?: string; cause?: unknown } = {}) {
    super("BROADCAST_REJECTED", "The node rejected the transaction.", options);
    this.hash = hash;
  }
}

export class ReceiptTimeoutError extends ChainError {
  /** The latest broadcast hash (the last replacement if there was one). */
  readonly hash: Hex;
  constructor(hash: Hex, timeoutMs: number) {
    super("RECEIPT_TIMEOUT", "No receipt before the timeout.", { details: `hash ${hash}, waited ${timeoutMs} ms` });
    this.hash = hash;
  }
}

/** The transaction, run as an eth_call exactly as it would be sent, reverted: it was not signed. */
export class SimulationRevertedError extends ChainError {
  /** The revert data the node gave, read from the kept cause: what a flow decodes into its own refusal. */
  readonly revertData: Hex | undefined;
  constructor(details: string, options: { cause?: unknown } = {}) {
    super("SIMULATION_REVERTED", "The transaction would revert.", { details, cause: options.cause });
    this.revertData = revertDataOf(options.cause);
  }
}

export class ExecutorStoppedError extends ChainError {
  constructor() {
    super("EXECUTOR_STOPPED", "The executor was stopped.");
  }
}

export class InvalidRequestError extends ChainError {
  constructor(details: string) {
    super("INVALID_REQUEST", "The transaction request is invalid.", { details });
  }
}

/**
 * Several instances on one database lease the executor keys (key-leases.ts), and this one holds none of this network's
 * now: nothing can be signed. Thrown before anything is signed or recorded, so the request may simply be retried
 * (the HTTP layer answers 503 `service_unavailable` with `Retry-After`), here or at another instance.
 */
export class NoKeyLeaseError extends ChainError {
  /** When a retry may find a key: the next lease heartbeat (a third of the lease), at least 1 s. */
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super("NO_KEY_LEASE", "This instance holds no executor key lease on the network.");
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * The transaction was signed with a key whose lease this instance no longer holds (it could not renew it in time, or
 * another instance took it over), so it is not broadcast: whoever holds the key resolves it from its journal record.
 */
export class KeyLeaseLostError extends ChainError {
  readonly hash: Hex;
  constructor(hash: Hex, from: string) {
    super("KEY_LEASE_LOST", "The executor key's lease was lost before the broadcast.", {
      details: `hash ${hash}, from ${from}`,
    });
    this.hash = hash;
  }
}

export class UnknownSenderError extends ChainError {
  constructor(from: string) {
    super("UNKNOWN_SENDER", "The transaction's sender is not an executor key.", { details: from });
  }
}

const errorText = (error: unknown): string =>
  error instanceof BaseError
    ? [error.shortMessage, error.details, error.message].join(" ")
    : error instanceof Error
      ? error.message
      : String(error);

/** Geth says "already known", anvil "transaction already imported", others "known transaction". */
export const isAlreadyKnown = (error: unknown) =>
  /already known|already imported|known transaction/i.test(errorText(error));

export const isNonceTooLow = (error: unknown) =>
  /nonce too low|nonce is too low|nonce has already been used/i.test(errorText(error));

/** The node holds another transaction with the same nonce and a fee this one does not beat by enough. */
export const isReplacementUnderpriced = (error: unknown) =>
  /replacement transaction underpriced/i.test(errorText(error));

/** An eth_call or estimate that reverted in the EVM (as opposed to a node or transport failure). */
export const isExecutionReverted = (error: unknown) =>
  /execution reverted|reverted with|revert/i.test(errorText(error));

/** True when a node answered with a JSON-RPC error, as opposed to a transport failure. */
const nodeAnswered = (error: unknown) =>
  error instanceof BaseError && error.walk((cause) => cause instanceof RpcRequestError) !== null;

const shortText = (error: unknown) =>
  error instanceof BaseError ? error.details || error.shortMessage : errorText(error);

/** Maps a failed read to a ChainError; transport failures become RpcUnavailableError. */
export function toReadError(error: unknown): ChainError {
  if (error instanceof ChainError) return error;
  if (nodeAnswered(error))
    return new ChainError("RPC_ERROR", "The node returned an error.", { details: shortText(error), cause: error });
  return new RpcUnavailableError({ details: shortText(error), cause: error });
}

/** Maps a failed eth_sendRawTransaction to RpcUnavailableError or BroadcastRejectedError. */
export function toBroadcastError(hash: Hex, error: unknown): ChainError {
  if (error instanceof ChainError) return error;
  if (nodeAnswered(error)) return new BroadcastRejectedError(hash, { details: shortText(error), cause: error });
  return new RpcUnavailableError({ details: shortText(error), cause: error });
}

/** The node refused the request's parameters (JSON-RPC -32602), e.g. an eth_call block override it does not take. */
export function isInvalidParams(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return error.walk((cause) => (cause as { code?: unknown }).code === -32602) !== null;
}

/**
 * The revert data of a failed eth_call (viem keeps the node's `error.data` on a cause), if it reverted with any:
 * what the UserOp kernel's simulation and a mined swap's replay decode.
 */
export function revertDataOf(error: unknown): Hex | undefined {
  let cause: unknown = error;
  for (let depth = 0; cause && depth < 10; depth++) {
    const data = (cause as { data?: unknown }).data;
    if (typeof data === "string" && /^0x([0-9a-f]{2})*$/i.test(data)) return data as Hex;
    if (data && typeof data === "object" && typeof (data as { data?: unknown }).data === "string") {
      return (data as { data: Hex }).data;
    }
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}
