import { Elysia, ValidationError } from "elysia";
import { deployRoutes } from "../deploy/routes";
import { ApiError } from "../errors";
import { incognitoRoutes } from "../incognito/routes";
import { MAX_BODY_BYTES, MAX_BODY_DEPTH } from "../limits";
import { paymentRoutes } from "../payments/routes";
import type { Services } from "../services";
import { statusRoutes } from "../status/routes";
import { swapRoutes } from "../swap/routes";
import { walletRoutes } from "../wallets/routes";
import { x402Routes } from "../x402/routes";
import { adminGuard, isAdminRequest } from "./admin-guard";
import { envelope } from "./errors";
import { bodyNestedTooDeep } from "./limits";
import { apiDocs } from "./openapi";
import { createRateLimiter, isMerchantRequest, rateLimitKey } from "./rate-limit";

type RequestMeta = { id: string; start: number; ip: string };

/** x402 clients read /supported at start (and retry it on 429): it answers from config, so it is never limited. */
const RATE_LIMIT_EXEMPT_PATHS = new Set(["/supported", "/api/v1/supported"]);

/** Turns a schema failure into `validation_error` naming the first offending field. */
function validationError(error: ValidationError): ApiError {
  const first = error.all?.[0] as { path?: string; message?: string; summary?: string } | undefined;
  const field = first?.path ? first.path.replace(/^\//, "").replaceAll("/", ".") : "body";
  const message = first?.summary ?? first?.message ?? "invalid request";
  return new ApiError("validation_error", `${field || "body"}: ${message}`, { field: field || "body" });
}

function clientIp(
  request: Request,
  server: { requestIP(r: Request): { address: string } | null } | null,
  trustProxy: boolean,
) {
  if (trustProxy) {
    // The proxy appends the address it saw: the last entry is the only one the client cannot forge.
    const forwarded = request.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();
    if (forwarded) return forwarded;
  }
  return server?.requestIP(request)?.address ?? "unknown";
}

/**
 * True when the body is over the limit. A chunked body has no content-length, so a copy of it is read
 * up to one byte past the limit (never further) before the JSON parser sees it.
 */
async function bodyTooLarge(request: Request): Promise<boolean> {
  const declared = request.headers.get("content-length");
  if (declared !== null) return Number(declared) > MAX_BODY_BYTES;
  if (!request.body) return false;
  const reader = request.clone().body?.getReader();
  if (!reader) return false;
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return false;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      return true;
    }
  }
}

export function createApp(services: Services) {
  const { config, logger } = services;
  const limiter = createRateLimiter(config.rateLimitPerMinute);
  const meta = new WeakMap<Request, RequestMeta>();

  const api = (prefix: string) =>
    new Elysia({ prefix, seed: prefix })
      .use(paymentRoutes(services.payments, services.x402))
      .use(x402Routes(services.networks))
      .use(statusRoutes(services.status))
      .use(walletRoutes(services.wallets))
      .use(incognitoRoutes(services.incognito))
      .use(swapRoutes(services.swaps))
      .use(deployRoutes(services.deployments, adminGuard(config.adminApiKey)));

  return new Elysia()
    .use(apiDocs(services.version))
    .onRequest(async ({ request, set, server }) => {
      const id = request.headers.get("x-request-id")?.slice(0, 64) || crypto.randomUUID();
      const ip = clientIp(request, server, config.trustProxy);
      meta.set(request, { id, start: performance.now(), ip });
      set.headers["x-request-id"] = id;

      if (await bodyTooLarge(request)) {
        throw new ApiError("payload_too_large", `request body exceeds ${MAX_BODY_BYTES} bytes`, {
          limit: MAX_BODY_BYTES,
        });
      }
      const unlimited =
        isAdminRequest(request, config.adminApiKey) ||
        isMerchantRequest(request, config.merchantApiKeys ?? []) ||
        RATE_LIMIT_EXEMPT_PATHS.has(new URL(request.url).pathname);
      if (!unlimited) {
        const wait = limiter.take(rateLimitKey(ip));
        if (wait > 0) {
          throw new ApiError(
            "rate_limit_exceeded",
            "too many requests",
            { retryAfterSeconds: wait },
            { "retry-after": String(wait) },
          );
        }
      }
      if (await bodyNestedTooDeep(request)) {
        throw new ApiError("validation_error", `request body is nested deeper than ${MAX_BODY_DEPTH} levels`, {
          field: "body",
          limit: MAX_BODY_DEPTH,
        });
      }
    })
    .onError(({ code, error, set, request }) => {
      let apiError: ApiError;
      if (error instanceof ApiError) apiError = error;
      else if (error instanceof ValidationError) apiError = validationError(error);
      else if (code === "NOT_FOUND") apiError = new ApiError("not_found", "no such route");
      else if (code === "PARSE")
        apiError = new ApiError("validation_error", "request body is not valid JSON", { field: "body" });
      else {
        logger.error({
          event: "unhandled_error",
          requestId: meta.get(request)?.id,
          error: error instanceof Error ? error.message.split("\n")[0] : String(error),
        });
        apiError = new ApiError("internal_error", "internal error");
      }
      set.status = apiError.status;
      for (const [name, value] of Object.entries(apiError.headers ?? {})) set.headers[name] = value;
      return envelope(apiError, config.docsBaseUrl);
    })
    .onAfterResponse(({ request, set, route }) => {
      if (!config.logRequests) return;
      const info = meta.get(request);
      logger.info({
        event: "request",
        requestId: info?.id,
        method: request.method,
        route: route || new URL(request.url).pathname,
        status: typeof set.status === "number" ? set.status : 200,
        latencyMs: info ? Math.round((performance.now() - info.start) * 100) / 100 : undefined,
        ip: info?.ip,
      });
    })
    .use(api(""))
    .use(api("/api/v1"));
}

export type App = ReturnType<typeof createApp>;
