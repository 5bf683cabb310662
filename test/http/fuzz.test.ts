import { afterAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { signedPayment } from "../support/authorization";
import { freshPayer, randomAddress } from "../support/chain";
import { startTestService } from "../support/service";

// Random and mutated bodies thrown at every route of the OpenAPI document (so routes added later are
// covered too): never a 5xx, never a stack trace, always the envelope on errors.
const service = startTestService();
afterAll(() => service.stop());

const ENVELOPE_KEYS = ["code", "message", "doc_url"];

function expectWellFormed(response: { status: number; body: any }, context: unknown) {
  if (response.status >= 500)
    throw new Error(`5xx for ${JSON.stringify(context).slice(0, 500)}: ${JSON.stringify(response.body)}`);
  if (response.status >= 400) {
    for (const key of ENVELOPE_KEYS) expect(typeof response.body[key]).toBe("string");
    expect(JSON.stringify(response.body)).not.toMatch(/\bat .*\.(ts|js):\d+/);
  }
}

/** Replaces one leaf (or removes one key) of a JSON value, chosen by `pick`. */
function mutate(value: unknown, pick: number, replacement: unknown, remove: boolean): unknown {
  const paths: (string | number)[][] = [];
  const walk = (node: unknown, path: (string | number)[]) => {
    paths.push(path);
    if (node && typeof node === "object")
      for (const [k, v] of Object.entries(node)) walk(v, [...path, Array.isArray(node) ? Number(k) : k]);
  };
  walk(value, []);
  const path = paths[pick % paths.length] ?? [];
  if (path.length === 0) return replacement;
  const copy = structuredClone(value) as any;
  let target: any = copy;
  for (const key of path.slice(0, -1)) target = target[key];
  const last = path.at(-1) as string | number;
  if (remove && !Array.isArray(target)) delete target[last];
  else target[last] = replacement;
  return copy;
}

const weird = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom(
    "",
    "0x",
    "0x00",
    `0x${"f".repeat(40)}`,
    `0x${"0".repeat(64)}`,
    "-1",
    "1e99",
    (2n ** 256n).toString(),
    "bsc",
    "base",
    "🙂",
    "\u0000",
  ),
  fc.integer(),
  fc.double(),
  fc.constant(null),
);

describe("property: every route answers bad input with the envelope, never a 5xx", async () => {
  const doc = (await service.get("/openapi/json")).body;
  const routes: { method: string; path: string }[] = [];
  for (const [path, operations] of Object.entries<Record<string, unknown>>(doc.paths)) {
    for (const method of Object.keys(operations)) routes.push({ method: method.toUpperCase(), path });
  }
  const payer = await freshPayer("bsc");
  const valid = await signedPayment({ network: "bsc", key: payer.key, to: randomAddress(), value: 1n });

  test("the document lists routes", () => expect(routes.length).toBeGreaterThan(4));

  for (const route of routes.filter((r) => r.method === "POST")) {
    test(`POST ${route.path}: random JSON bodies`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.jsonValue(), async (body) => {
          expectWellFormed(await service.post(route.path, JSON.stringify(body)), body);
        }),
        { numRuns: 25 },
      );
    });
    test(`POST ${route.path}: every leaf replaced by an object whose toString is not a function`, async () => {
      // Found by the mutation property: Elysia's error summary interpolates the offending value, and this one throws.
      for (let pick = 0; pick < 12; pick++) {
        const body = mutate(valid, pick, { toString: "" }, false);
        const response = await service.post(route.path, JSON.stringify(body));
        expectWellFormed(response, body);
      }
    });
    test(`POST ${route.path}: mutated valid-looking bodies`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.nat(), weird, fc.boolean(), async (pick, replacement, remove) => {
          const body = mutate(valid, pick, replacement, remove);
          expectWellFormed(await service.post(route.path, JSON.stringify(body)), body);
        }),
        { numRuns: 25 },
      );
    });
    test(`POST ${route.path}: raw strings that are not JSON`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.string({ maxLength: 200 }), async (text) => {
          expectWellFormed(await service.post(route.path, text), text);
        }),
        { numRuns: 15 },
      );
    });
  }

  for (const route of routes.filter((r) => r.method === "GET" && r.path.includes("{"))) {
    test(`GET ${route.path}: random path parameters`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.string({ maxLength: 80 }), async (param) => {
          const path = route.path.replace(/\{[^}]+\}/g, encodeURIComponent(param));
          expectWellFormed(await service.get(path), path);
        }),
        { numRuns: 25 },
      );
    });
  }
});
