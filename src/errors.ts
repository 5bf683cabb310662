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
