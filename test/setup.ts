// One devnet per test run, on free ports of its own (a development devnet may be up at the same
// time), started before any test file loads and stopped after the last one, also when tests fail.
import "../src/production-env";
import { afterAll } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { buildContracts } from "../scripts/devnet/build";
import { startDevnet } from "../scripts/devnet/start";
import { setTestDevnet } from "./support/devnet";

const dir = join(import.meta.dir, "..", ".devnet", `test-${process.pid}`);

buildContracts();
const started = performance.now();
const devnet = await startDevnet({ dir, quiet: true });
setTestDevnet(devnet, { dir, startupMs: performance.now() - started });

afterAll(async () => {
  await devnet.stop().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});
