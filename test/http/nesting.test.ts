import { afterAll, describe, expect, test } from "bun:test";
import { MAX_BODY_DEPTH } from "../../src/limits";
import { startTestService } from "../support/service";

const service = startTestService();
afterAll(() => service.stop());

/** 60,000 bytes, under the 64 KiB size limit: before the depth limit each cost ~0.5 s of schema validation. */
const DEEP = `${"[".repeat(30_000)}${"]".repeat(30_000)}`;
const adminHeaders = { "x-admin-api-key": service.config.adminApiKey };

function expectDepthRefusal(response: { status: number; body: any }) {
  expect(response.status).toBe(400);
  expect(response.body.code).toBe("validation_error");
  expect(response.body.message).toBe(`request body is nested deeper than ${MAX_BODY_DEPTH} levels`);
  expect(response.body.details).toEqual({ field: "body", limit: MAX_BODY_DEPTH });
}

describe(`bodies nested deeper than ${MAX_BODY_DEPTH} levels`, () => {
  // How fast the refusal is, is a figure the benchmark prints (`bun run bench`), not a timed assertion here.
  test("are refused before the parser and the schema, on every body route", async () => {
    const routes: [string, Record<string, string>?][] = [
      ["/verify"],
      ["/settle"],
      ["/wallet/verify"],
      ["/wallet/settle"],
      ["/api/v1/verify"],
      ["/deploy/verify", adminHeaders],
    ];
    for (const [path, headers] of routes) {
      for (const body of [DEEP, `{"paymentPayload":${'{"a":'.repeat(8_000)}1${"}".repeat(8_001)}`]) {
        expectDepthRefusal(await service.post(path, body, headers));
      }
    }
  });

  test("a chunked body (no content-length) is measured the same way", async () => {
    const response = await service.app.handle(
      new Request("http://localhost/verify", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(DEEP));
            controller.close();
          },
        }),
      }),
    );
    expect(response.status).toBe(400);
    expectDepthRefusal({ status: response.status, body: await response.json() });
  });

  test("brackets inside strings do not count, and 32 levels still reach the schema", async () => {
    const inString = await service.post("/verify", { paymentPayload: "[".repeat(30_000) });
    expect(inString.status).toBe(400);
    expect(inString.body.message).not.toContain("nested deeper");

    const atLimit = `{"paymentPayload":${"[".repeat(MAX_BODY_DEPTH - 1)}${"]".repeat(MAX_BODY_DEPTH - 1)}}`;
    const response = await service.post("/verify", atLimit);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe("validation_error");
    expect(response.body.message).not.toContain("nested deeper");
  });

  test("ten at once leave /health answering promptly", async () => {
    const started = performance.now();
    const deep = Array.from({ length: 10 }, () => service.post("/verify", DEEP));
    const health = await service.get("/health");
    const healthMs = performance.now() - started;
    for (const response of await Promise.all(deep)) expectDepthRefusal(response);
    expect(health.status).toBe(200);
    // Before the limit, /health waited behind ~5 s of validation.
    expect(healthMs).toBeLessThan(1_000);
  }, 30_000);
});
