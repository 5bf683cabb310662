import { expect, test } from "bun:test";
import { forEachAtMost } from "./at-most";

test("every item runs once, never more than the limit at a time", async () => {
  let running = 0;
  let most = 0;
  const seen: number[] = [];
  await forEachAtMost(
    Array.from({ length: 23 }, (_, i) => i),
    4,
    async (item) => {
      running += 1;
      most = Math.max(most, running);
      await Bun.sleep(2);
      seen.push(item);
      running -= 1;
    },
  );
  expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 23 }, (_, i) => i));
  expect(most).toBe(4);
  await forEachAtMost([], 4, async () => {
    throw new Error("no item, no call");
  });
});
