import { afterAll, describe, expect, test } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { ERROR_EXAMPLE } from "../../src/examples";
import type { AnyFlow } from "../../src/flow";
import { FLOWS } from "../../src/flows";
import { ALTERNATIVES, EXAMPLES } from "../../src/http/openapi/document";
import { STATUS_EXAMPLES } from "../../src/status/examples";
import { startTestService } from "../support/service";

const service = startTestService();
afterAll(() => service.stop());

type Media = { schema?: Record<string, any>; example?: unknown; examples?: Record<string, { value: unknown }> };
const hasExample = (media: Media) =>
  media.example !== undefined ||
  (media.examples !== undefined && Object.values(media.examples).every((example) => example.value !== undefined));
type Operation = {
  requestBody?: { content: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media> }>;
};

const documentOf = async () => (await service.get("/openapi/json")).body;
const operationsOf = (doc: { paths: Record<string, Record<string, Operation>> }) =>
  Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, operation })),
  );

describe("the OpenAPI document", () => {
  test("lists each route once: the /api/v1 alias is described, not repeated", async () => {
    const doc = await documentOf();
    expect(Object.keys(doc.paths).filter((path) => path.startsWith("/api/v1"))).toEqual([]);
    expect(doc.info.description).toContain("/api/v1");
    expect((await service.post("/api/v1/verify", {})).status).toBe(400);
  });

  test("every request body is JSON only", async () => {
    for (const { route, operation } of operationsOf(await documentOf())) {
      if (!operation.requestBody) continue;
      expect([route, Object.keys(operation.requestBody.content)]).toEqual([route, ["application/json"]]);
    }
  });

  test("every request and response body has an example", async () => {
    const missing: string[] = [];
    for (const { route, operation } of operationsOf(await documentOf())) {
      const json = operation.requestBody?.content["application/json"];
      if (json && !hasExample(json)) missing.push(`${route} request`);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const body = response.content?.["application/json"];
        if (body && !hasExample(body)) missing.push(`${route} ${status}`);
      }
    }
    expect(missing).toEqual([]);
  });

  test("every example passes the route's own schema (they cannot drift from what the service checks)", () => {
    const wrong: string[] = [];
    for (const route of service.app.routes) {
      if (route.path.startsWith("/api/v1") || route.path.startsWith("/openapi")) continue;
      const key = `${route.method} ${route.path.replace(/:(\w+)/g, "{$1}")}`;
      const hooks = route.hooks as { body?: TSchema; response?: Record<string, TSchema> };
      const examples = EXAMPLES[key];
      if (hooks.body && !Value.Check(hooks.body, examples?.request)) wrong.push(`${key} request`);
      for (const [status, schema] of Object.entries(hooks.response ?? {})) {
        const example = examples?.responses?.[status] ?? (Number(status) >= 400 ? ERROR_EXAMPLE : undefined);
        if (!Value.Check(schema, example)) wrong.push(`${key} ${status}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  test("each flow declares its tag and its own routes' examples: none twice, none of a route not served", () => {
    const served = new Set(
      service.app.routes.map((route) => `${route.method} ${route.path.replace(/:(\w+)/g, "{$1}")}`),
    );
    const flows: readonly AnyFlow[] = FLOWS;
    const declared = [STATUS_EXAMPLES, ...flows.map((flow) => flow.openapi?.examples ?? {})].flatMap(Object.keys);
    expect(declared.filter((key, index) => declared.indexOf(key) !== index)).toEqual([]);
    expect(declared.filter((key) => !served.has(key))).toEqual([]);
    const tags = flows.flatMap((flow) => flow.openapi?.tags ?? []);
    expect(flows.filter((flow) => !flow.openapi?.tags.length).map((flow) => flow.name)).toEqual([]);
    expect(new Set(tags.map((tag) => tag.order)).size).toBe(tags.length);
  });

  test("/verify and /settle document the x402 v1 and v2 bodies and answers beside the interface's own", async () => {
    const doc = await documentOf();
    for (const path of ["/verify", "/settle"]) {
      const operation = doc.paths[path].post;
      expect(operation.description).toContain("x402Version");
      const request = operation.requestBody.content["application/json"];
      const titles = request.schema.oneOf.map((schema: { title?: string }) => schema.title);
      expect(titles).toEqual([undefined, "x402 v2 body", "x402 v1 body"]);
      expect(request.schema.oneOf[0].required).toEqual(["paymentPayload", "paymentRequirements"]);
      expect(Object.keys(request.examples)).toEqual(["relay402", "x402v2", "x402v2Permit2", "x402v1"]);
      expect(request.examples.relay402.value).toEqual(EXAMPLES[`POST ${path}`]?.request);
      const answer = operation.responses["200"].content["application/json"];
      expect(answer.schema.oneOf).toHaveLength(2);
      expect(answer.examples.relay402.value).toEqual(EXAMPLES[`POST ${path}`]?.responses?.["200"]);
    }
  });

  test("every x402 example passes its x402 schema, and the service answers each x402 request example in the documented shape", async () => {
    const wrong: string[] = [];
    for (const [route, { request, responses }] of Object.entries(ALTERNATIVES)) {
      const answerSchemas = Object.values(responses["200"] ?? {}).map((answer) => answer.schema);
      for (const [name, { schema, example }] of Object.entries(request)) {
        if (!Value.Check(schema, example)) wrong.push(`${route} request ${name}`);
        // The real service: an x402 body is routed to x402 (200, an x402 answer), never to the interface's 400.
        const answer = await service.post(route.replace("POST ", ""), example);
        if (answer.status !== 200 || !answerSchemas.some((schema) => Value.Check(schema, answer.body)))
          wrong.push(`${route} answer to ${name}: ${answer.status} ${JSON.stringify(answer.body)}`);
      }
      for (const [status, answers] of Object.entries(responses))
        for (const [name, { schema, example }] of Object.entries(answers))
          if (!Value.Check(schema, example)) wrong.push(`${route} ${status} ${name}`);
    }
    expect(wrong).toEqual([]);
  });

  test("/config and /health have full response schemas", async () => {
    const doc = await documentOf();
    const config = doc.paths["/config"].get.responses["200"].content["application/json"].schema;
    expect(Object.keys(config.properties)).toEqual(["version", "networks", "limits"]);
    const network = config.properties.networks.additionalProperties ?? config.properties.networks.patternProperties;
    expect(JSON.stringify(network)).toContain("signedTypes");
    expect(JSON.stringify(network)).toContain("spender");
    for (const status of ["200", "503"]) {
      const health = doc.paths["/health"].get.responses[status].content["application/json"].schema;
      expect(Object.keys(health.properties)).toEqual(["status", "version", "networks", "database"]);
    }
  });

  test("each flow is described, the approve step included", async () => {
    const doc = await documentOf();
    const tags = Object.fromEntries(doc.tags.map((tag: { name: string; description: string }) => [tag.name, tag]));
    for (const name of ["EOA payments", "Smart wallet payments", "Wallet deployment"]) {
      expect(tags[name]?.description.length).toBeGreaterThan(100);
    }
    expect(tags["EOA payments"].description).toContain("approve(spender");
    for (const { route, operation } of operationsOf(doc)) {
      expect([route, (operation as { tags?: string[] }).tags?.every((tag) => tag in tags)]).toEqual([route, true]);
    }
  });

  test("the real /config and /health answers have the fields of their examples", async () => {
    const doc = await documentOf();
    const healthExample = doc.paths["/health"].get.responses["200"].content["application/json"].example;
    // The example is the operator's answer (with the admin key); the public one has the same fields less the figures.
    const health = (await service.get("/health", { "x-admin-api-key": service.config.adminApiKey })).body;
    expect(Object.keys(health)).toEqual(Object.keys(healthExample));
    expect(Object.keys(health.networks.bsc).sort()).toEqual(Object.keys(healthExample.networks.bsc).sort());
    const publicHealth = (await service.get("/health")).body;
    const figures = ["executors", "paymasterDeposit"];
    expect(Object.keys(publicHealth.networks.bsc).sort()).toEqual(
      Object.keys(healthExample.networks.bsc)
        .filter((key) => !figures.includes(key))
        .sort(),
    );
    const configExample = doc.paths["/config"].get.responses["200"].content["application/json"].example;
    const config = (await service.get("/config")).body;
    expect(Object.keys(config.networks.bsc).sort()).toEqual(Object.keys(configExample.networks.bsc).sort());
    expect(config.networks.bsc.signedTypes).toEqual(configExample.networks.bsc.signedTypes);
    expect(Object.keys(config.limits).sort()).toEqual(Object.keys(configExample.limits).sort());
  });
});

describe("the /openapi page", () => {
  test("loads its UI from this service only (pinned, works offline)", async () => {
    const page = await service.get("/openapi");
    expect(page.headers.get("content-type")).toContain("text/html");
    const html = page.body as string;
    expect(html).not.toMatch(/https?:\/\//);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] as string);
    expect(assets.length).toBe(2);
    for (const asset of assets) {
      const response = await service.get(asset);
      expect(response.status).toBe(200);
      expect(String(response.body).length).toBeGreaterThan(10_000);
    }
    expect((await service.get("/openapi/assets/nope.js")).status).toBe(404);
  });
});
