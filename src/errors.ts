import { ERROR_STATUS, type ErrorCode, Relay402Error } from "@relay402/client/wire/errors";

// The error root and the codes are the wire format: they live with the client, which raises the same codes.
export { ERROR_STATUS, type ErrorCode, Relay402Error };

/**
 * An error a client is answered with: it becomes the envelope `{ code, message, doc_url, details? }` at the
 * edge (src/http/errors.ts), which is the only place that knows about HTTP beyond the status of each code.
 */
export class ApiError extends Relay402Error {
  override name = "ApiError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message, { docsPath: `#${code}` });
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
  /** What is kept of the error so that a repeated request can be answered with it again. */
  toStored(): StoredApiError {
    return { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) };
  }
  static fromStored(stored: StoredApiError): ApiError {
    return new ApiError(stored.code, stored.message, stored.details);
  }
}

export type StoredApiError = { code: ErrorCode; message: string; details?: Record<string, unknown> };

/** How long a client is told to wait before it asks again about a payment in flight (a block or two on either chain). */
export const PENDING_RETRY_AFTER_SECONDS = 2;

/** What a payment in flight is answered with: it has an id the client can settle again with, or look up. */
export type PendingPayment = { paymentId: string; network: string; payer: string; transaction?: string | null };

/**
 * A payment sent (or being sent by another request) whose outcome is not known yet. Not an outage: the edge
 * answers it 202 with `{ success: false, status: "pending", paymentId, network, payer, transaction? }`,
 * `Retry-After` and `Location: /payments/{paymentId}`; settling the same body again gives the final result.
 * It keeps the `blockchain_error` code so that a caller inside the service (x402's reason table) reads it as before.
 */
export class PaymentPendingError extends ApiError {
  override name = "PaymentPendingError";
  constructor(
    readonly pending: PendingPayment,
    message: string,
  ) {
    super(
      "blockchain_error",
      message,
      {
        status: "pending",
        paymentId: pending.paymentId,
        network: pending.network,
        payer: pending.payer,
        ...(pending.transaction ? { transaction: pending.transaction } : {}),
      },
      {
        "retry-after": String(PENDING_RETRY_AFTER_SECONDS),
        location: `/payments/${pending.paymentId}`,
      },
    );
  }
  override get status(): number {
    return 202;
  }
  /** The 202 answer's body. */
  body(): PendingPaymentBody {
    const { paymentId, network, payer, transaction } = this.pending;
    return {
      success: false,
      status: "pending",
      paymentId,
      network,
      payer,
      ...(transaction ? { transaction } : {}),
      message: this.message,
    };
  }
}

export type PendingPaymentBody = {
  success: false;
  status: "pending";
  paymentId: string;
  network: string;
  payer: string;
  transaction?: string;
  message: string;
};

/** `error` with `details.paymentId` once the payment was recorded, so the client can look it up or quote it. */
export function withPaymentId(error: unknown, paymentId: string): unknown {
  if (!(error instanceof ApiError) || error instanceof PaymentPendingError) return error;
  if (error.details?.paymentId === paymentId) return error;
  return new ApiError(error.code, error.message, { ...error.details, paymentId }, error.headers);
}
