import { expect, test } from "bun:test";
import { createTurns } from "./turns";

test("callers get their turns in the order they asked, each in a macrotask of its own", async () => {
  const nextTurn = createTurns();
  const log: string[] = [];
  const turns = ["a", "b", "c"].map((name) =>
    nextTurn().then(() => {
      log.push(name);
      // Work the loop got meanwhile (an answer, a timer) runs before the next caller's turn.
      setImmediate(() => log.push(`after ${name}`));
    }),
  );
  await Promise.all(turns);
  await new Promise((resolve) => setImmediate(resolve));
  expect(log).toEqual(["a", "after a", "b", "after b", "c", "after c"]);
});

test("a caller that throws in its turn does not hold up the next", async () => {
  const nextTurn = createTurns();
  const first = nextTurn().then(() => {
    throw new Error("signing failed");
  });
  await expect(first).rejects.toThrow("signing failed");
  await nextTurn();
});
