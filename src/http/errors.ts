/** Machine-readable error codes of the interface and decisions.md, with their HTTP status. */
export const ERROR_STATUS = {
  validation_error: 400,
  signature_error: 400,
  nonce_error: 400,
  payment_verification_error: 400,
  userop_error: 400,
  unauthorized: 401,
  not_found: 404,
  payload_too_large: 413,
  rate_limit_exceeded: 429,
  payment_settlement_error: 500,
  deployment_error: 500,
  funding_error: 500,
  blockchain_error: 500,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** An error that becomes the envelope `{ code, message, doc_url, details? }`. */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
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

export type ErrorEnvelope = { code: ErrorCode; message: string; doc_url: string; details?: Record<string, unknown> };

export function envelope(error: ApiError, docsBaseUrl: string): ErrorEnvelope {
  return { ...error.toStored(), doc_url: `${docsBaseUrl}#${error.code}` };
}
