// Stops the run's devnet after the last test file, also when tests fail. The devnet itself is started by the
// first test file that imports test/support/devnet.ts, so unit tests beside the code run without one.
import "../src/production-env";
import { afterAll } from "bun:test";
import { rmSync } from "node:fs";

afterAll(async () => {
  // The run's PostgreSQL (test/support/postgres.ts), if a test file started one.
  await (globalThis as { relay402TestPostgres?: { stop(): Promise<void> } }).relay402TestPostgres
    ?.stop()
    .catch(() => undefined);
  const started = (globalThis as { relay402TestDevnet?: { devnet: { stop(): Promise<void> }; dir: string } })
    .relay402TestDevnet;
  if (!started) return;
  await started.devnet.stop().catch(() => undefined);
  rmSync(started.dir, { recursive: true, force: true });
  // A hook's own limit is 5 s whatever bunfig says; stopping PostgreSQL, two anvils and two Alto bundlers on a
  // loaded 2-core machine has taken longer, and a timed-out hook counts as a failed test.
}, 60_000);
