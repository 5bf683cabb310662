import { Relay402ClientError } from "./errors.js";

export type Relay402ClientOptions = {
  /** Where the service listens, e.g. http://localhost:4020. */
  url: string;
  /** Sent as x-admin-api-key to the admin-only deployment endpoints. */
  adminApiKey?: string;
  /** Attempts of an idempotent settle (network errors and pending settlements); default 5. */
  settleAttempts?: number;
  /** Wait between settle attempts in ms when the service names none (a pending answer's Retry-After wins); default 1000. */
  retryDelayMs?: number;
  fetch?: typeof fetch;
};

export type RequestOptions = { admin?: boolean; idempotent?: boolean };

export type Relay402Client = {
  url: string;
  get<T>(path: string): Promise<T>;
  /** A binary resource (the incognito circuit's artifacts); a non-2xx answer is a Relay402ClientError. */
  getBytes(path: string): Promise<Uint8Array>;
  post<T>(path: string, body: unknown, options?: RequestOptions): Promise<T>;
};

/** The longest a Retry-After is followed: a service asking for more is asked again sooner. */
const MAX_RETRY_AFTER_MS = 60_000;

/**
 * A 202 `{ success: false, status: "pending", paymentId, network, payer, transaction? }`: the payment is in flight.
 * It is raised as the pending `blockchain_error` the service answered before 202 (`isPending`), with the answer's
 * fields and `retryAfterSeconds` from its Retry-After header in `details`.
 */
function pendingError(json: Record<string, unknown>, response: Response): Relay402ClientError {
  const { success: _success, message, ...fields } = json;
  const retryAfter = Number(response.headers.get("retry-after"));
  return new Relay402ClientError(
    "blockchain_error",
    typeof message === "string" ? message : "the payment is in flight; settle again for its result",
    {
      ...fields,
      status: "pending",
      ...(Number.isFinite(retryAfter) && retryAfter >= 0 ? { retryAfterSeconds: retryAfter } : {}),
      ...(response.headers.get("location") ? { location: response.headers.get("location") } : {}),
    },
    response.status,
  );
}

/**
 * The HTTP side of every flow: JSON in, the typed answer or a Relay402ClientError out. Only requests marked
 * idempotent (the settles, which answer a repeat with the first result) are retried, on network errors (no
 * answer, or a proxy's 502/503/504 without the envelope) and on a pending settlement; a verify or a quote is
 * sent once.
 */
export function createRelay402Client(options: Relay402ClientOptions): Relay402Client {
  const base = options.url.replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;
  const attempts = options.settleAttempts ?? 5;
  const delayMs = options.retryDelayMs ?? 1000;

  async function once<T>(method: string, path: string, body: unknown, admin: boolean): Promise<T> {
    const headers: Record<string, string> = body === undefined ? {} : { "content-type": "application/json" };
    if (admin) {
      if (!options.adminApiKey) throw new Relay402ClientError("unauthorized", `${path} needs the admin API key`);
      headers["x-admin-api-key"] = options.adminApiKey;
    }
    let response: Response;
    let text: string;
    try {
      response = await doFetch(`${base}${path}`, {
        method,
        headers,
        body:
          body === undefined
            ? undefined
            : JSON.stringify(body, (_, value) => (typeof value === "bigint" ? value.toString() : value)),
      });
      text = await response.text();
    } catch (error) {
      throw new Relay402ClientError(
        "network_error",
        `${method} ${path} failed: ${(error as Error).message}`,
        undefined,
        undefined,
        error,
      );
    }
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      throw new Relay402ClientError(
        "network_error",
        `${method} ${path} answered ${response.status} without JSON`,
        undefined,
        response.status,
      );
    }
    // A payment in flight (202) is not a result: it becomes a pending error, which a settle retries after Retry-After.
    if (response.status === 202 && json?.status === "pending") throw pendingError(json, response);
    if (response.ok) return json as T;
    if (typeof json?.code === "string" && typeof json?.message === "string") {
      throw new Relay402ClientError(json.code, json.message, json.details, response.status);
    }
    throw new Relay402ClientError(
      "network_error",
      `${method} ${path} answered ${response.status}`,
      undefined,
      response.status,
    );
  }

  async function withRetries<T>(run: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await run();
      } catch (error) {
        const retryable =
          error instanceof Relay402ClientError &&
          (error.isPending || (error.code === "network_error" && (error.status === undefined || error.status >= 502)));
        if (!retryable || attempt >= attempts) throw error;
        const retryAfter = error.details?.retryAfterSeconds;
        const wait = typeof retryAfter === "number" ? Math.min(retryAfter * 1000, MAX_RETRY_AFTER_MS) : delayMs;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  async function getBytes(path: string): Promise<Uint8Array> {
    let response: Response;
    try {
      response = await doFetch(`${base}${path}`);
    } catch (error) {
      throw new Relay402ClientError(
        "network_error",
        `GET ${path} failed: ${(error as Error).message}`,
        undefined,
        undefined,
        error,
      );
    }
    if (!response.ok) {
      throw new Relay402ClientError(
        "network_error",
        `GET ${path} answered ${response.status}`,
        undefined,
        response.status,
      );
    }
    return new Uint8Array(await response.arrayBuffer());
  }

  return {
    url: base,
    get: (path) => once("GET", path, undefined, false),
    getBytes,
    post: (path, body, request = {}) => {
      const run = () => once<any>("POST", path, body, request.admin ?? false);
      return request.idempotent ? withRetries(run) : run();
    },
  };
}
