import { expect, test } from "bun:test";
import { createDrain } from "./drain";

test("idle waits for every piece of work to end, each end counted once", async () => {
  const drain = createDrain();
  const endA = drain.begin();
  let finishB!: () => void;
  const b = drain.track(new Promise<void>((resolve) => (finishB = resolve)));
  expect(drain.active).toBe(2);
  drain.start();
  expect(drain.draining).toBe(true);
  let idle: boolean | undefined;
  const waiting = drain.idle(5_000).then((result) => (idle = result));
  endA();
  endA();
  expect(drain.active).toBe(1);
  await Bun.sleep(5);
  expect(idle).toBeUndefined();
  finishB();
  await b;
  await waiting;
  expect(idle).toBe(true);
  expect(drain.active).toBe(0);
});

test("idle gives up after its timeout while work is still active", async () => {
  const drain = createDrain();
  drain.begin();
  const started = performance.now();
  expect(await drain.idle(30)).toBe(false);
  expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  expect(drain.active).toBe(1);
});

test("idle with nothing active answers at once", async () => {
  expect(await createDrain().idle(10_000)).toBe(true);
});
