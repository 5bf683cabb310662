import { type ErrorCode, Relay402Error } from "./wire/errors.js";

/** Codes the client raises itself, next to the service's own (ErrorCode). */
export type ClientErrorCode =
  /** The service could not be reached (or answered something that is not the envelope). */
  | "network_error"
  /** The service answered, but not what was asked: a UserOp that pays someone else, a config without the network. */
  | "unexpected_response"
  /**
   * The payer has too little of the chain's native coin for the gas of the one transaction it sends itself (its
   * approve of the relayer); `details`: `address`, `balance` (wei). Or it has none, on a token without permit, and
   * the service would not fund that approve: `details`: `address`, `reason` (`funded_approve_disabled`,
   * `below_funded_approve_minimum` with `minimum`, `funded_approve_over_caps`).
   */
  | "insufficient_gas";

/**
 * Every error of the relay402 client: the service's envelope (`code`, `message`, `details`) with the HTTP status,
 * or one of the client's own codes (status undefined).
 */
export class Relay402ClientError extends Relay402Error {
  override name = "Relay402ClientError";
  constructor(
    readonly code: ErrorCode | ClientErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly status?: number,
    cause?: unknown,
  ) {
    super(message, { docsPath: `#${code}`, cause });
  }

  /**
   * A settlement in flight (sent but not yet mined, or being settled by another request): settling the same body
   * again is safe. The service answers it 202 (`details`: `paymentId`, `network`, `payer`, `transaction?`,
   * `retryAfterSeconds`); the 500 `blockchain_error` with `details.status: "pending"` of earlier releases is read
   * the same for one release.
   */
  get isPending(): boolean {
    return this.code === "blockchain_error" && this.details?.status === "pending";
  }
}
