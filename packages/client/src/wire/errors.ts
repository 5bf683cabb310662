/**
 * The one error root of relay402, in the style of viem's BaseError: a short message, an optional cause, a docs
 * anchor (a path under the error docs) and `walk()` to find a cause of a given kind. API, chain, bundler and
 * config errors extend it; each adds its own machine-readable code and details.
 */
export class Relay402Error extends Error {
  override name = "Relay402Error";
  readonly shortMessage: string;
  readonly docsPath: string | undefined;

  constructor(shortMessage: string, options: { cause?: unknown; docsPath?: string; message?: string } = {}) {
    super(options.message ?? shortMessage, options.cause === undefined ? undefined : { cause: options.cause });
    this.shortMessage = shortMessage;
    this.docsPath = options.docsPath;
  }

  /** This error or the first cause in its chain for which `match` is true (the deepest one without `match`). */
  walk(match?: (error: unknown) => boolean): unknown {
    let current: unknown = this;
    while (current) {
      const next = current instanceof Error ? current.cause : undefined;
      if (match ? match(current) : next === undefined) return current;
      current = next;
    }
    return null;
  }
}

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
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
