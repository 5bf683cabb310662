import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestService } from "../support/service";

// The API surface a client or a monitoring setup depends on: the OpenAPI document and the metric names (with their
// types). Recorded from the service before its flows became plugins (src/flows.ts); a change here is a change of
// the public interface, made on purpose: record it again with `RECORD_API_SURFACE=1 bun test test/http/api-surface.test.ts`.

const service = startTestService();
afterAll(() => service.stop());

const FIXTURE = join(import.meta.dir, "fixtures/api-surface.json");
const recorded = JSON.parse(readFileSync(FIXTURE, "utf8")) as {
  openapi: { paths: Record<string, unknown>; tags?: unknown };
  metrics: string[];
};

/** Object keys sorted at every level: the fixture diffs by content, not by the order routes are mounted in. */
const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : value && typeof value === "object"
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
        )
      : value;

const current = async () => {
  const openapi = (await service.get("/openapi/json")).body;
  const text = (await service.get("/metrics", { "x-admin-api-key": service.config.adminApiKey })).body as string;
  const metrics = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((match) => `${match[1]} ${match[2]}`).sort();
  return { openapi, metrics };
};

if (process.env.RECORD_API_SURFACE === "1") {
  test("records the API surface", async () => {
    writeFileSync(FIXTURE, `${JSON.stringify(canonical(await current()))}\n`);
  });
}

describe("the API surface is what it was", () => {
  test("the OpenAPI document: every path, operation, schema, example and tag", async () => {
    const doc = (await current()).openapi;
    expect(Object.keys(doc.paths).sort()).toEqual(Object.keys(recorded.openapi.paths).sort());
    for (const path of Object.keys(recorded.openapi.paths))
      expect([path, doc.paths[path]]).toEqual([path, recorded.openapi.paths[path]]);
    expect(doc).toEqual(recorded.openapi);
  });

  test("the metric names and types on /metrics", async () => {
    expect((await current()).metrics).toEqual(recorded.metrics);
  });
});
