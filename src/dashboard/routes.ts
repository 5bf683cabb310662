import { AddressField, ErrorResponse } from "@relay402/client/wire/fields";
import { Elysia, t } from "elysia";
// The chart library, pinned in package.json and served from here: the page loads nothing from another origin.
import uplotScript from "uplot/dist/uPlot.iife.min.js" with { type: "text" };
import uplotStyle from "uplot/dist/uPlot.min.css" with { type: "text" };
import { ApiError } from "../errors";
import type { RouteContext } from "../flow";
import { MAX_PAGE } from "./dashboard";
import { DASHBOARD_KEY } from "./key";
import style from "./page/dashboard.css" with { type: "text" };
import script from "./page/dashboard.js" with { type: "text" };
import pageFile from "./page/index.html" with { type: "text" };
import { PaymentsFoundSchema, WebhookEndpointsSchema } from "./payment-schemas";
import { type DashboardService, MAX_FOUND, paymentSearchOf } from "./payment-view";
import { AttentionSchema, FlowName, SettlementsSchema, SummarySchema } from "./schemas";

/**
 * The page may run only its own script and style, talk only to this origin, and be framed by no one: what a
 * payer wrote (a revert reason, a token symbol) can never become code here (the page also sets it as text only).
 */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const pageHeaders = (type: string) => ({
  "content-type": type,
  "content-security-policy": DASHBOARD_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
});

// Bun types an .html import as a bundle; imported as text it is the file's text.
const page = pageFile as unknown as string;

// A Map, not an object literal: a file name is the client's, and `__proto__` or `constructor` is a property of every object.
const ASSETS = new Map<string, { body: string; type: string }>([
  ["dashboard.js", { body: script, type: "text/javascript; charset=utf-8" }],
  ["dashboard.css", { body: style, type: "text/css; charset=utf-8" }],
  ["uPlot.iife.min.js", { body: uplotScript, type: "text/javascript; charset=utf-8" }],
  ["uPlot.min.css", { body: uplotStyle, type: "text/css; charset=utf-8" }],
]);

const tags = ["Dashboard"];
const security = [{ dashboardApiKey: [] }];
const errors = { 400: ErrorResponse, 401: ErrorResponse, 429: ErrorResponse };
/** An ISO 8601 UTC time as the records store it. */
const IsoTime = t.String({ pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]{8,12}Z$", description: "ISO 8601 UTC time" });
const NetworkName = t.String({ pattern: "^[a-z0-9-]{1,32}$", description: "network name" });

// Closed sets as literals, written out: Elysia's UnionEnum would fill a missing optional value with its first one,
// and a missing filter must stay missing (records.ts's lists are the same values).
const Range = t.Union([t.Literal("hour"), t.Literal("day"), t.Literal("month")]);
const Status = t.Union([t.Literal("success"), t.Literal("failed"), t.Literal("pending")]);

const SummaryQuery = t.Object({
  range: t.Optional(Range),
  network: t.Optional(NetworkName),
  flow: t.Optional(FlowName),
});

const PaymentsQuery = t.Object({
  q: t.String({
    pattern: "^0x([0-9a-fA-F]{40}|[0-9a-fA-F]{64})$",
    description: "a payment id or a transaction hash (32 bytes), or a payer's address",
  }),
});

const SettlementsQuery = t.Object({
  network: t.Optional(NetworkName),
  flow: t.Optional(FlowName),
  status: t.Optional(Status),
  payer: t.Optional(AddressField),
  payee: t.Optional(AddressField),
  before: t.Optional(IsoTime),
  // Digits, bounded below: a query string's integer is coerced before it is checked, and its refusal would name no field.
  limit: t.Optional(t.String({ pattern: "^[0-9]{1,6}$", description: `rows per page, 1 to ${MAX_PAGE} (default 50)` })),
});

/** GET /dashboard (the page and its two files) and the JSON API it reads, /dashboard/api/* (the dashboard key). */
export function dashboardRoutes(dashboard: DashboardService, context: RouteContext) {
  return new Elysia({ name: "dashboard", seed: Math.random() })
    .use(context.keyGuard(DASHBOARD_KEY))
    .get("/dashboard", () => new Response(page, { headers: pageHeaders("text/html; charset=utf-8") }), {
      detail: { hide: true },
    })
    .get(
      "/dashboard/assets/:file",
      ({ params }) => {
        const asset = ASSETS.get(params.file);
        if (!asset) throw new ApiError("not_found", "no such file");
        return new Response(asset.body, { headers: pageHeaders(asset.type) });
      },
      { detail: { hide: true } },
    )
    .get("/dashboard/api/summary", ({ query }) => dashboard.summary(query.range ?? "day", query), {
      keyed: true,
      query: SummaryQuery,
      response: { 200: SummarySchema, ...errors },
      detail: {
        tags,
        security,
        summary: "Settlements, volume, fees, gas and latency per network and flow over a range",
        description:
          "range: hour, day (default) or month (30 days). Per network and flow: settlement counts, success rate, " +
          "volume and fees per token (smallest units, decimal strings), gas the executors paid (receipts) and what " +
          "the paymaster sponsored (wei), with how many rows did not record them (unknown, never counted as 0), " +
          "latency percentiles; and a series of counts per bucket for charts. docs/dashboard.md says what each figure means.",
      },
    })
    .get(
      "/dashboard/api/settlements",
      ({ query }) => {
        const limit = query.limit === undefined ? undefined : Number(query.limit);
        if (limit !== undefined && (limit < 1 || limit > MAX_PAGE))
          throw new ApiError("validation_error", `limit: from 1 to ${MAX_PAGE}`, { field: "limit" });
        return dashboard.settlements({ ...query, limit });
      },
      {
        keyed: true,
        query: SettlementsQuery,
        response: { 200: SettlementsSchema, ...errors },
        detail: {
          tags,
          security,
          summary: "Recent settlements, newest first, filtered, each with its block explorer link",
          description:
            `At most ${MAX_PAGE} per page (limit, default 50); \`next\` is the \`before\` of the next page. ` +
            'gasWei and sponsoredWei are "unknown" for rows written before receipt figures were recorded.',
        },
      },
    )
    .get(
      "/dashboard/api/payments",
      ({ query }) => {
        const search = paymentSearchOf(query.q);
        if (!search)
          throw new ApiError("validation_error", "q: a payment id, a transaction hash or an address", { field: "q" });
        return dashboard.payments.find(search);
      },
      {
        keyed: true,
        query: PaymentsQuery,
        response: { 200: PaymentsFoundSchema, ...errors },
        detail: {
          tags,
          security,
          summary: "Payments by id, transaction or payer, each with its webhook deliveries",
          description:
            "q: a payment id or a transaction hash (both 32 bytes: either matches), or a payer's address (its " +
            `newest ${MAX_FOUND}). Each record is the payment lookup's (GET /payments/{paymentId}), with the ` +
            "deliveries of its events to every endpoint: status, attempts, the receiver's last status and error.",
        },
      },
    )
    .get("/dashboard/api/webhooks", () => dashboard.payments.webhookEndpoints(), {
      keyed: true,
      response: { 200: WebhookEndpointsSchema, 401: ErrorResponse, 429: ErrorResponse },
      detail: {
        tags,
        security,
        summary: "The webhook endpoints and their deliveries: pending, failing, delivered and dead",
        description:
          "Per configured endpoint: its URL without credentials or query string, its filters, whether a 410 " +
          "disabled it, and its deliveries' counts (failing: pending after at least one failed attempt).",
      },
    })
    .get("/dashboard/api/attention", () => dashboard.attention(), {
      keyed: true,
      response: { 200: AttentionSchema, 401: ErrorResponse, 429: ErrorResponse },
      detail: {
        tags,
        security,
        summary: "Executors, paymaster deposits, stuck records, denied payers and failure reasons",
        description:
          "Executors: native balance, the alert threshold (config dashboard.executorAlertWei), in-flight " +
          "transactions, key lease holder, hours left at the last day's spend. Paymasters: EntryPoint deposit and " +
          "how many sponsored UserOps it covers at the last 30 days' average. Stuck: records pending for over 5 " +
          "minutes. Denied: deny counters. Errors: the last day's failed records by stored reason.",
      },
    });
}
