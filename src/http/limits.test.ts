import { describe, expect, test } from "bun:test";
import { MAX_BODY_DEPTH } from "../limits";
import { nestedDeeperThan } from "./limits";

const nested = (depth: number, open = "[", close = "]") => open.repeat(depth) + close.repeat(depth);

describe("nestedDeeperThan", () => {
  test("counts arrays and objects, refusing only past the limit", () => {
    expect(nestedDeeperThan(nested(MAX_BODY_DEPTH), MAX_BODY_DEPTH)).toBe(false);
    expect(nestedDeeperThan(nested(MAX_BODY_DEPTH + 1), MAX_BODY_DEPTH)).toBe(true);
    expect(nestedDeeperThan(`{"a":${nested(2)}}`, 2)).toBe(true);
    expect(nestedDeeperThan(`{"a":${nested(1)}}`, 2)).toBe(false);
    expect(nestedDeeperThan('{"a":{"b":{"c":1}}}', 3)).toBe(false);
    expect(nestedDeeperThan('{"a":{"b":{"c":{}}}}', 3)).toBe(true);
  });

  test("siblings do not add up: depth is what is open at once", () => {
    const wide = `[${Array.from({ length: 10_000 }, () => "[[1]]").join(",")}]`;
    expect(nestedDeeperThan(wide, 3)).toBe(false);
    expect(nestedDeeperThan(wide, 2)).toBe(true);
  });

  test("brackets inside strings, escaped quotes included, do not count", () => {
    expect(nestedDeeperThan(JSON.stringify({ a: "[".repeat(1_000) }), 1)).toBe(false);
    expect(nestedDeeperThan(JSON.stringify({ a: `\\"${"{".repeat(100)}\\` }), 1)).toBe(false);
    expect(nestedDeeperThan(JSON.stringify(['"', "[[[["]), 1)).toBe(false);
    // The string ends at an unescaped quote: what follows counts again.
    expect(nestedDeeperThan('["\\\\", [[1]]]', 2)).toBe(true);
  });

  test("closing brackets before opening ones buy no depth", () => {
    expect(nestedDeeperThan(`${"]".repeat(100)}${"[".repeat(MAX_BODY_DEPTH + 1)}`, MAX_BODY_DEPTH)).toBe(true);
  });

  test("the attack body (30,000 nested [ in 60 KB) is refused in one cheap pass", () => {
    const body = nested(30_000);
    const started = performance.now();
    expect(nestedDeeperThan(body, MAX_BODY_DEPTH)).toBe(true);
    expect(nestedDeeperThan(" ".repeat(60_000), MAX_BODY_DEPTH)).toBe(false);
    expect(performance.now() - started).toBeLessThan(50);
  });
});
