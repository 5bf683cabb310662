// One devnet per test run, on free ports of its own (a development devnet may be up at the same
// time), started before the first test file and stopped after the last, also when tests fail.
import { afterAll, beforeAll } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { buildContracts } from "../scripts/devnet/build";
import { startDevnet } from "../scripts/devnet/start";
import { setTestDevnet } from "./support/devnet";

const dir = join(import.meta.dir, "..", ".devnet", `test-${process.pid}`);

beforeAll(async () => {
  buildContracts();
  const started = performance.now();
  const devnet = await startDevnet({ dir, quiet: true });
  setTestDevnet(devnet, { dir, startupMs: performance.now() - started });
}, 120_000);

afterAll(async () => {
  const { getTestDevnet } = await import("./support/devnet");
  await getTestDevnet()
    .devnet.stop()
    .catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});
