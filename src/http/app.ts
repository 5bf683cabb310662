import { Elysia, ValidationError } from "elysia";
import { checksumAddresses } from "../chain/checksum-addresses";
import { NoKeyLeaseError } from "../chain/errors";
import { merchantKeysOf } from "../config/merchant-keys";
import { ApiError, PaymentPendingError } from "../errors";
import type { BodyReader, RouteContext } from "../flow";
import { DRAIN_RETRY_AFTER_SECONDS } from "../lifecycle/drain";
import { MAX_BODY_BYTES, MAX_BODY_DEPTH } from "../limits";
import { httpRequests, settleDuration } from "../metrics/metrics";
import type { Services } from "../services";
import { statusRoutes } from "../status/routes";
import { adminGuard, adminKeyAttempt, flowKeyGuard, flowKeyOf, keyAttempt } from "./admin-guard";
import { envelope } from "./errors";
import { isJsonContentType, nestedDeeperThan } from "./limits";
import { metricsRoutes } from "./metrics";
import { apiDocs } from "./openapi";
import { createRateLimiter, isMerchantRequest, merchantKeyOf, rateLimitKey } from "./rate-limit";

type RequestMeta = {
  id: string;
  start: number;
  ip: string;
  /** The settle flow of a route that sends (the settle metric's label), its path, and the end of its drain count. */
  flow?: string;
  path?: string;
  /** The sending route's path without the /api/v1 prefix: what flows declare and body readers match. */
  route?: string;
  endWork?: () => void;
};

/**
 * x402 clients read /supported at start (and retry it on 429): it answers from config, so it is never limited.
 * /metrics needs the admin key and is read from the cache: a monitoring scrape is never told to slow down.
 */
const RATE_LIMIT_EXEMPT_PATHS = new Set(["/supported", "/api/v1/supported", "/metrics", "/api/v1/metrics"]);

/**
 * Routes whose answer to a request carrying a key may hold what only that key shows: the operator's figures. Flows
 * add theirs (Flow.keyedPaths).
 */
const KEYED_STATUS_ROUTES = ["/health", "/metrics"];

/**
 * What an answer that depends on a key says, its refusals included: no cache or browser keeps it (a shared cache
 * would serve the admin's figures, or a dashboard page of records, to the next client), a cache that does keep
 * such a URL tells answers apart by the key headers, and a browser never reads the JSON as another type.
 */
const keyedAnswerHeaders = (keyHeaders: readonly string[]) => ({
  "cache-control": "no-store",
  vary: keyHeaders.join(", "),
  "x-content-type-options": "nosniff",
});

/**
 * What a wrong admin key (or a flow's own key, Flow.key) costs a client's budget, on every route (the exempt ones too): ten requests' worth, so a
 * client guessing keys at the default 120 requests a minute gets 12 guesses a minute, and a request with a wrong
 * key never costs less than one without a key.
 */
export const WRONG_ADMIN_KEY_COST = 10;

/**
 * The POST routes that may send a transaction or a UserOp, with their settle metric label, as each flow declares
 * them: refused while the service drains, counted until they answer (a graceful shutdown waits for them), and
 * timed by the settle histogram. A body another flow reads (x402's on /settle) is labelled with that flow.
 */
function sendingRoutes(services: Services) {
  const sending: Record<string, string> = Object.assign({}, ...services.flows.map(({ flow }) => flow.sending ?? {}));
  /** The flow of a sending route and its path (a fixed path, so a bounded label even before routing). */
  return (request: Request): { flow: string; path: string; route: string } | undefined => {
    if (request.method !== "POST") return undefined;
    const path = new URL(request.url).pathname.replace(/(?<=.)\/$/, "");
    const route = path.replace(/^\/api\/v1(?=\/)/, "");
    const flow = sending[route];
    return flow ? { flow, path, route } : undefined;
  };
}

type ValueError = { path?: string; message?: string; summary?: string; schema?: unknown; value?: unknown };

/**
 * The first offending field of a schema failure. Elysia's summaries interpolate the offending value, which throws
 * for a value whose `toString` is not a function (`{"toString": ""}` in a body): then TypeBox's own error, unsummarised.
 */
function firstValueError(error: ValidationError): ValueError | undefined {
  try {
    return error.all?.[0] as ValueError | undefined;
  } catch {
    const raw = (error as { valueError?: ValueError }).valueError;
    return raw && { path: raw.path, message: raw.message, schema: raw.schema, value: raw.value };
  }
}

/** The allowed values of a union of literals (`network`, incognito `type`), else undefined. */
function literalsOf(schema: unknown): string[] | undefined {
  const options = (schema as { anyOf?: unknown[] } | undefined)?.anyOf;
  if (!Array.isArray(options) || options.length === 0) return undefined;
  const values = options.map((option) => (option as { const?: unknown }).const);
  return values.every((value) => typeof value === "string" || typeof value === "number")
    ? values.map(String)
    : undefined;
}

/** A value as an error message shows it: short, and never by calling its own toString. */
function shown(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.slice(0, 64));
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  return Array.isArray(value) ? "an array" : `a value of type ${typeof value}`;
}

/** Turns a schema failure into `validation_error` naming the first offending field. */
function validationError(error: ValidationError): ApiError {
  const first = firstValueError(error);
  const field = first?.path ? first.path.replace(/^\//, "").replaceAll("/", ".") : "body";
  const allowed = literalsOf(first?.schema);
  const message = allowed
    ? `${shown(first?.value)} is not one of ${allowed.join(", ")}`
    : (first?.summary ?? first?.message ?? "invalid request");
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

/** Per flow, the networks that serve it (its capability enabled and available): what the OpenAPI tags say. */
const servedOn = (services: Services) =>
  Object.fromEntries(
    services.flows.map(({ flow }) => [
      flow.name,
      services.networks
        .all()
        .filter((network) => (flow.capability ? network.capabilities.includes(flow.capability) : true))
        .map((network) => network.name),
    ]),
  );

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

  const sendingRoute = sendingRoutes(services);
  const readers: BodyReader[] = services.flows.flatMap(({ flow, service }) => flow.readers?.(service) ?? []);
  const merchantKeys = merchantKeysOf(config);
  const routeContext: RouteContext = {
    config,
    networks: services.networks,
    adminGuard: adminGuard(config.adminApiKey),
    readers,
    keyGuard: (key) => flowKeyGuard(key.header, key.keys(config)),
    keyHolder: (request) =>
      adminKeyAttempt(request, config.adminApiKey, new URL(request.url).pathname) === "right"
        ? "admin"
        : merchantKeyOf(request, merchantKeys),
  };
  const flowKeys = services.flows.flatMap(({ flow }) => (flow.key ? [flow.key] : []));
  const keyHeaders = [
    ...new Set(["x-admin-api-key", "authorization", ...flowKeys.map((key) => key.header), "x-api-key"]),
  ];
  const keyedRoutes = new Set([...KEYED_STATUS_ROUTES, ...services.flows.flatMap(({ flow }) => flow.keyedPaths ?? [])]);
  const carriesKey = (request: Request) => keyHeaders.some((header) => request.headers.has(header));
  const keyedHeaders = keyedAnswerHeaders(keyHeaders);
  const api = (prefix: string) => {
    let routes = new Elysia({ prefix, seed: prefix })
      .use(statusRoutes(services.status, config.adminApiKey))
      .use(metricsRoutes(services));
    for (const { flow, service } of services.flows) routes = routes.use(flow.routes(service, routeContext));
    return routes;
  };

  return new Elysia()
    .use(apiDocs(services.version, servedOn(services)))
    .onRequest(async ({ request, set, server }) => {
      const id = request.headers.get("x-request-id")?.slice(0, 64) || crypto.randomUUID();
      const ip = clientIp(request, server, config.trustProxy);
      const sending = sendingRoute(request);
      const info: RequestMeta = { id, start: performance.now(), ip, ...sending };
      meta.set(request, info);
      set.headers["x-request-id"] = id;
      const path = new URL(request.url).pathname;
      const route = path.replace(/^\/api\/v1(?=\/)/, "");
      const flowKey = flowKeyOf(flowKeys, route);
      // Set first, so that every refusal below (413, 429) carries them too.
      if (flowKey || (keyedRoutes.has(route) && carriesKey(request))) Object.assign(set.headers, keyedHeaders);

      if (await bodyTooLarge(request)) {
        throw new ApiError("payload_too_large", `request body exceeds ${MAX_BODY_BYTES} bytes`, {
          limit: MAX_BODY_BYTES,
        });
      }
      const adminKey = adminKeyAttempt(request, config.adminApiKey, path);
      const wrongKey =
        adminKey === "wrong" ||
        (flowKey !== undefined && keyAttempt(request, flowKey.header, true, flowKey.keys(config)) === "wrong");
      // A wrong key of any kind is a guess and always costs, whatever other key (a merchant's, the admin's) rides along.
      const unlimited =
        !wrongKey &&
        (adminKey === "right" || isMerchantRequest(request, merchantKeys) || RATE_LIMIT_EXEMPT_PATHS.has(path));
      if (!unlimited) {
        const wait = limiter.take(rateLimitKey(ip), wrongKey ? WRONG_ADMIN_KEY_COST : 1);
        if (wait > 0) {
          throw new ApiError(
            "rate_limit_exceeded",
            "too many requests",
            { retryAfterSeconds: wait },
            { "retry-after": String(wait) },
          );
        }
      }
      if (info.flow) {
        // Checked last, after the awaits above, and counted in the same turn: a settle either counts as work a
        // drain waits for, or is refused; none can slip in once the drain found nothing left (src/lifecycle/drain.ts).
        if (services.drain.draining) {
          throw new ApiError(
            "service_unavailable",
            "the service is shutting down and takes no new settles; retry shortly",
            { retryAfterSeconds: DRAIN_RETRY_AFTER_SECONDS },
            { "retry-after": String(DRAIN_RETRY_AFTER_SECONDS) },
          );
        }
        info.endWork = services.drain.begin();
      }
    })
    .onParse({ as: "global" }, async ({ request, contentType }) => {
      // Every JSON body is read here, once: its nesting is measured on the raw text before the parser and the schema
      // see it (a 60 KiB body of nested `[` cost the schema validator half a second of CPU). Other content types
      // (text, forms, bytes) are Elysia's to parse, and none of them nests.
      // Every body of this API is JSON: another content type would reach the schema as "field is missing".
      if (!isJsonContentType(contentType)) {
        throw new ApiError(
          "validation_error",
          `request body must be sent with content-type application/json, not ${contentType ? `"${contentType.slice(0, 100)}"` : "none"}`,
          { field: "content-type" },
        );
      }
      const text = await request.text();
      if (nestedDeeperThan(text, MAX_BODY_DEPTH)) {
        throw new ApiError("validation_error", `request body is nested deeper than ${MAX_BODY_DEPTH} levels`, {
          field: "body",
          limit: MAX_BODY_DEPTH,
        });
      }
      return JSON.parse(text);
    })
    .onAfterHandle({ as: "global" }, ({ responseValue }) => {
      const checksummed = checksumAddresses(responseValue);
      if (checksummed !== responseValue) return checksummed;
    })
    .onError(({ code, error, set, request }) => {
      let apiError: ApiError;
      // Elysia wraps whatever the parse hook throws in its ParseError.
      const cause = code === "PARSE" ? (error as Error).cause : undefined;
      if (error instanceof ApiError) apiError = error;
      else if (cause instanceof ApiError) apiError = cause;
      else if (error instanceof ValidationError) apiError = validationError(error);
      else if (error instanceof NoKeyLeaseError)
        // Nothing was recorded or signed: another instance (or this one at its next lease heartbeat) can settle it.
        apiError = new ApiError(
          "service_unavailable",
          "this instance holds no executor key for the network now; retry shortly",
          { retryAfterSeconds: error.retryAfterSeconds },
          { "retry-after": String(error.retryAfterSeconds) },
        );
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
      if (apiError instanceof PaymentPendingError) return checksumAddresses(apiError.body());
      return envelope(apiError, config.docsBaseUrl);
    })
    .onAfterResponse(({ request, set, route, body }) => {
      const info = meta.get(request);
      const status = typeof set.status === "number" ? set.status : 200;
      // The route pattern, never the raw path: label values stay bounded whatever clients ask for. A request refused
      // before routing (429, 413, 503 while draining) has no pattern: a sending route's fixed path, else "unmatched".
      httpRequests.inc({ route: route || info?.path || "unmatched", method: request.method, status: String(status) });
      if (info?.flow) {
        info.endWork?.();
        const reader = readers.find((each) => each.paths.includes(info.route ?? "") && each.matches(body));
        const flow = reader?.flow ?? info.flow;
        settleDuration.observe({ flow, status: String(status) }, (performance.now() - info.start) / 1000);
        for (const each of services.flows) each.flow.afterSending?.(each.service);
      }
      if (!config.logRequests) return;
      logger.info({
        event: "request",
        requestId: info?.id,
        method: request.method,
        route: route || new URL(request.url).pathname,
        status,
        latencyMs: info ? Math.round((performance.now() - info.start) * 100) / 100 : undefined,
        ip: info?.ip,
      });
    })
    .use(api(""))
    .use(api("/api/v1"));
}

export type App = ReturnType<typeof createApp>;
