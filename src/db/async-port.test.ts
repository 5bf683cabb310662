import { expect, test } from "bun:test";
import { asAsync } from "./async-port";

test("asAsync runs each method in the call and answers its result, or its throw, as a promise", async () => {
  const calls: string[] = [];
  const store = {
    find: (key: string) => {
      calls.push(`find ${key}`);
      return key === "known" ? { id: 1 } : undefined;
    },
    claim: (): { created: boolean } => {
      throw new Error("unique constraint");
    },
    journal: async (id: number) => {
      calls.push(`journal ${id}`);
    },
  };
  const port = asAsync(store);
  const found = port.find("known");
  // The statement ran before anything was awaited: no other request can come between the call and the write.
  expect(calls).toEqual(["find known"]);
  expect(found).toBeInstanceOf(Promise);
  expect(await found).toEqual({ id: 1 });
  expect(await port.find("other")).toBeUndefined();
  // A throw is a rejection, not an exception in the caller's tick (as a database server's error would be).
  const claimed = port.claim();
  expect(claimed).toBeInstanceOf(Promise);
  await expect(claimed).rejects.toThrow("unique constraint");
  await port.journal(7);
  expect(calls).toEqual(["find known", "find other", "journal 7"]);
});
