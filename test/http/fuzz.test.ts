import { afterAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { getAddress } from "viem";
import { signedPayment } from "../support/authorization";
import { freshPayer, randomAddress } from "../support/chain";
import { startTestService } from "../support/service";

// Random and mutated bodies thrown at every route of the OpenAPI document (so routes added later are
// covered too): never a 5xx, never a stack trace, always the envelope on errors. Beside the random ones, every
// POST route's own examples (the document's, each alternative's) are sent with the admin key, so that the admin
// routes are checked past their guard: as malformed JSON, and with each leaf in turn given a wrong type, an
// out-of-range number, a string that is not hex or an unknown network.
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

/** Every request example of an operation: its own and each alternative's (x402's bodies on /verify). */
function requestExamples(operation: any): unknown[] {
  const media = operation?.requestBody?.content?.["application/json"];
  const named = Object.values<{ value: unknown }>(media?.examples ?? {}).map((example) => example.value);
  return [media?.example, ...named].filter((example) => example !== undefined).map(checksummed);
}

/**
 * The example with every address in its EIP-55 form: a bad checksum in an example (refused, naming the field) would
 * stop every mutation of a later field at that refusal; a bad checksum is one of the mutations instead.
 */
function checksummed(value: unknown): unknown {
  if (typeof value === "string") return /^0x[0-9a-fA-F]{40}$/.test(value) ? getAddress(value.toLowerCase()) : value;
  if (Array.isArray(value)) return value.map(checksummed);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, checksummed(child)]));
  return value;
}

/** The path of every leaf (a value that is not an object or array) of a JSON value. */
function leafPaths(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== "object") return [path];
  return Object.entries(value).flatMap(([key, child]) =>
    leafPaths(child, [...path, Array.isArray(value) ? Number(key) : key]),
  );
}

const withLeaf = (value: unknown, path: (string | number)[], leaf: unknown) => {
  const copy = structuredClone(value) as any;
  let target = copy;
  for (const key of path.slice(0, -1)) target = target[key];
  target[path.at(-1) as string | number] = leaf;
  return copy;
};

const NETWORK_KEYS = new Set(["network", "networks"]);
const UNKNOWN_NETWORKS = ["ethereum", "eip155:1", "bsc-testnet", "base-sepolia", "eip155:97", "BSC", ""];

/** An address in mixed case whose EIP-55 checksum is wrong (every letter's case flipped). */
const badChecksum = (address: string) => {
  const flipped = `0x${[...getAddress(address).slice(2)].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join("")}`;
  return /[a-f]/.test(flipped.slice(2)) && /[A-F]/.test(flipped.slice(2)) ? flipped : `0x${"aB".repeat(20)}`;
};

/** What a client gets wrong about one leaf: its type, its range, its hex, its network. */
function badValuesFor(key: string | number | undefined, leaf: unknown): unknown[] {
  const bad: unknown[] = [null, { toString: "" }, []];
  if (typeof leaf === "string") {
    bad.push(42, true, [leaf]);
    if (/^0x[0-9a-fA-F]*$/.test(leaf)) {
      bad.push(`0x${"z".repeat(Math.max(1, leaf.length - 2))}`, `${leaf.slice(0, -1)}g`, leaf.slice(2), `${leaf}0`);
    }
    if (/^0x[0-9a-fA-F]{40}$/.test(leaf)) bad.push(badChecksum(leaf));
    if (/^[0-9]+$/.test(leaf)) bad.push((2n ** 256n).toString(), "9".repeat(78), "-1", "1.5", "1e30", ` ${leaf}`);
    if (typeof key === "string" && NETWORK_KEYS.has(key)) bad.push(...UNKNOWN_NETWORKS);
  } else if (typeof leaf === "number") {
    bad.push(String(leaf), -1, 1.5, 2 ** 53 + 2, 1e308, 2 ** 256, -(2 ** 63));
  } else if (typeof leaf === "boolean") {
    bad.push("true", 1);
  }
  return bad;
}

/** The example's JSON text made malformed in the ways a hand-written or cut-off body is. */
function malformedJson(example: unknown): string[] {
  const text = JSON.stringify(example);
  const cuts = [1, 2, 3, 5, 8].map((eighth) => text.slice(0, Math.floor((text.length * eighth) / 9)));
  return [
    ...cuts,
    `${text.slice(0, -1)},}`,
    text.replaceAll('"', "'"),
    text.replace(/:"[^"]*"/, ":NaN"),
    text.replace(/:"[^"]*"/, ":0x12"),
    `${text}}`,
    `${text}${text}`,
    "",
    "undefined",
  ];
}

describe("property: every POST route's own examples, broken, answer 4xx with the envelope", async () => {
  const doc = (await service.get("/openapi/json")).body;
  const admin = { "x-admin-api-key": service.config.adminApiKey };
  const posts = Object.entries<Record<string, unknown>>(doc.paths)
    .filter(([, operations]) => operations.post)
    .map(([path, operations]) => ({ path, examples: requestExamples(operations.post) }));

  test("every POST route has an example body", () => {
    expect(posts.length).toBeGreaterThan(15);
    for (const { path, examples } of posts) expect(examples.length, path).toBeGreaterThan(0);
  });

  for (const { path, examples } of posts) {
    test(`POST ${path}: its examples as malformed JSON`, async () => {
      for (const text of examples.flatMap(malformedJson)) {
        const response = await service.post(path, text, admin);
        expectWellFormed(response, text);
        expect(response.status, text.slice(0, 200)).toBe(400);
      }
    });

    test(`POST ${path}: each leaf of its examples of a wrong type, out of range, not hex, an unknown network`, async () => {
      for (const example of examples) {
        for (const leaf of leafPaths(example)) {
          const original = leaf.reduce((node: any, key) => node[key], example);
          for (const replacement of badValuesFor(leaf.at(-1), original)) {
            const body = withLeaf(example, leaf, replacement);
            expectWellFormed(await service.post(path, JSON.stringify(body), admin), { path, leaf, replacement });
          }
        }
      }
    }, 120_000);
  }
});
