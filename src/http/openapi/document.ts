import { toOpenAPISchema } from "@elysiajs/openapi";
import type { AnyElysia } from "elysia";
import { type Alternative, type Alternatives, ERROR_EXAMPLE, type Examples } from "../../examples";
import type { AnyFlow } from "../../flow";
import { FLOWS } from "../../flows";
import { NETWORK_PRESETS } from "../../networks";
import { STATUS_EXAMPLES } from "../../status/examples";

/** Every route is also served under this prefix; the document lists each route once, without it. */
export const ALIAS_PREFIX = "/api/v1";

const DESCRIPTION = `Payment facilitator for ERC-20 payments on ${NETWORK_PRESETS.map((preset) => `${preset.title} (\`${preset.name}\`)`).join(", ")}: the networks this service has configured are those of \`GET /config\`.

Every route below is also served under \`${ALIAS_PREFIX}\` (for example \`${ALIAS_PREFIX}/verify\`), with the same
body and answer. Requests and answers are JSON. Errors share one envelope \`{ code, message, doc_url, details? }\`;
the codes are listed in the repository's \`docs/errors.md\`. Amounts are decimal strings in the token's smallest
unit. \`GET /config\` gives everything a client signs with: the relayer's EIP-712 domain, viem-ready types, the
spender to approve, tokens, fees and limits.`;

const UTILITY = {
  name: "Utility",
  description: "Health, and the client configuration every flow starts from (`GET /config`).",
};

/** Where each flow is served, by flow name: the networks whose config enables its capability. */
export type ServedOn = Readonly<Record<string, readonly string[]>>;

/**
 * Each flow's tags in their declared order (see OpenApiTag), each saying on which networks this service serves it,
 * then Utility: the status routes and /metrics.
 */
function tagsOf(servedOn: ServedOn) {
  const where = (flow: AnyFlow) => {
    const networks = servedOn[flow.name] ?? [];
    return networks.length > 0
      ? `\n\nServed here on: ${networks.map((name) => `\`${name}\``).join(", ")}.`
      : "\n\nNot enabled on any network of this service: its routes answer 400 `validation_error` with `details.capability` and what to configure.";
  };
  const tags = FLOWS.flatMap((flow: AnyFlow) =>
    (flow.openapi?.tags ?? []).map((tag) => ({ ...tag, description: `${tag.description}${where(flow)}` })),
  );
  return [...tags.sort((a, b) => a.order - b.order).map(({ name, description }) => ({ name, description })), UTILITY];
}

/** One example per request and response body, by "METHOD /path": the flows' own and the status routes'. */
export const EXAMPLES: Record<string, Examples> = Object.assign(
  {},
  STATUS_EXAMPLES,
  ...FLOWS.map((flow: AnyFlow) => flow.openapi?.examples ?? {}),
);

/** Bodies a route also takes and answers, by "METHOD /path": other flows' readings of it (their BodyReaders). */
export const ALTERNATIVES: Record<string, Alternatives> = Object.assign(
  {},
  ...FLOWS.map((flow: AnyFlow) => flow.openapi?.alternatives ?? {}),
);

type Media = { schema?: unknown; example?: unknown; examples?: Record<string, { summary: string; value: unknown }> };
type Content = Record<string, Media>;
type Operation = {
  description?: string;
  requestBody?: { content?: Content };
  responses?: Record<string, { content?: Content }>;
};

/** The route's own schema and example, then each alternative: `oneOf` the schemas, one named example each. */
function withAlternatives(media: Media, own: string, alternatives: Record<string, Alternative>) {
  const schemas = [...new Set(Object.values(alternatives).map((alternative) => alternative.schema))];
  media.schema = { oneOf: [media.schema, ...schemas] };
  media.examples = {
    relay402: { summary: own, value: media.example },
    ...Object.fromEntries(
      Object.entries(alternatives).map(([name, { summary, example }]) => [name, { summary, value: example }]),
    ),
  };
  delete media.example;
}

/**
 * A route's own body or answer schema as Elysia enforces it: Elysia sets `additionalProperties: false` on each
 * route's top-level object schema, in place, when it first compiles the route's validator. Stated here, the
 * document is the same before and after the first request (a copy: the live schema is Elysia's).
 */
function asEnforced(media: Media) {
  const schema = media.schema as { type?: unknown; additionalProperties?: unknown } | undefined;
  if (schema?.type === "object")
    media.schema = { ...schema, additionalProperties: schema.additionalProperties ?? false };
}

/** What the generator reads of an app (its `getGlobal…` methods are protected in Elysia's types). */
type RouteSource = {
  getGlobalDefinitions?(): unknown;
  getGlobalRoutes(): { hooks?: { parse?: { fn: unknown }[] } }[];
};

/**
 * The app's routes as the generator should see them: without the app's own JSON parse hook (src/http/app.ts), for
 * which it would list no content type at all; the request bodies then get Elysia's defaults, trimmed to JSON below.
 */
function documentedRoutes(app: AnyElysia) {
  const source = app as unknown as RouteSource;
  const documented: RouteSource = {
    getGlobalDefinitions: () => source.getGlobalDefinitions?.(),
    getGlobalRoutes: () =>
      source.getGlobalRoutes().map((route) => {
        const parse = route.hooks?.parse?.filter((hook) => typeof hook.fn !== "function");
        return { ...route, hooks: { ...route.hooks, parse: parse?.length ? parse : undefined } };
      }),
  };
  return documented as unknown as AnyElysia;
}

/** The OpenAPI document: each route once, JSON bodies only, an example on every body. */
export function buildDocument(app: AnyElysia, version: string, servedOn: ServedOn) {
  const { paths, components } = toOpenAPISchema(documentedRoutes(app), {
    paths: [new RegExp(`^${ALIAS_PREFIX}(/|$)`)],
  });
  for (const [path, operations] of Object.entries(paths as Record<string, Record<string, Operation>>)) {
    for (const [method, operation] of Object.entries(operations)) {
      const key = `${method.toUpperCase()} ${path}`;
      const examples = EXAMPLES[key];
      const alternatives = ALTERNATIVES[key];
      if (alternatives) operation.description = `${operation.description ?? ""} ${alternatives.note}`.trim();
      const requestContent = operation.requestBody?.content;
      if (requestContent) {
        // Elysia also lists form encodings for every object body; the service is JSON only.
        for (const type of Object.keys(requestContent)) if (type !== "application/json") delete requestContent[type];
        const json = requestContent["application/json"];
        if (json) asEnforced(json);
        if (json && examples?.request !== undefined) json.example = examples.request;
        if (json && alternatives) withAlternatives(json, "relay402's own body", alternatives.request);
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const json = response.content?.["application/json"];
        if (!json) continue;
        asEnforced(json);
        const example = examples?.responses?.[status] ?? (Number(status) >= 400 ? ERROR_EXAMPLE : undefined);
        if (example !== undefined) json.example = example;
        const answers = alternatives?.responses[status];
        if (answers) withAlternatives(json, "relay402's own answer", answers);
      }
    }
  }
  return {
    openapi: "3.1.0",
    info: { title: "relay402", version, description: DESCRIPTION },
    tags: tagsOf(servedOn),
    paths,
    components: {
      ...components,
      securitySchemes: {
        adminApiKey: { type: "apiKey", in: "header", name: "x-admin-api-key" },
        merchantApiKey: {
          type: "apiKey",
          in: "header",
          name: "x-api-key",
          description: "Optional: a configured merchant key lifts the per-IP rate limit.",
        },
        ...Object.assign({}, ...FLOWS.map((flow: AnyFlow) => flow.openapi?.securitySchemes ?? {})),
      },
    },
  };
}
