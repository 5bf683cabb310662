import type { ApiError, ErrorCode } from "../errors";

export type ErrorEnvelope = { code: ErrorCode; message: string; doc_url: string; details?: Record<string, unknown> };

export function envelope(error: ApiError, docsBaseUrl: string): ErrorEnvelope {
  return { ...error.toStored(), doc_url: `${docsBaseUrl}#${error.code}` };
}
