// One devnet per test run, on free ports of its own (a development devnet may be up at the same time). It is
// started by the first test file that needs it, when this module is first imported, so unit tests beside the
// code (`bun test src/`) run without one; the preload (test/setup.ts) stops it after the last file.
import { join } from "node:path";
import { buildContracts } from "../../scripts/devnet/build";
import { type Devnet, startDevnet } from "../../scripts/devnet/start";

export type TestDevnet = { devnet: Devnet; dir: string; startupMs: number };

/** Where the run's devnet is kept, so that the preload can stop it without importing (and starting) it. */
export const holder = globalThis as { relay402TestDevnet?: TestDevnet };

if (!holder.relay402TestDevnet) {
  const dir = join(import.meta.dir, "..", "..", ".devnet", `test-${process.pid}`);
  buildContracts();
  const started = performance.now();
  const devnet = await startDevnet({ dir, quiet: true });
  holder.relay402TestDevnet = { devnet, dir, startupMs: performance.now() - started };
}

/** The devnet of this run. */
export function getTestDevnet(): TestDevnet {
  return holder.relay402TestDevnet as TestDevnet;
}
