// One PostgreSQL per test process (like the devnet of test/support/devnet.ts), started by the first test file that
// imports this module, on a free port in a temporary folder; each test file takes a database of its own
// (`createTestDatabase`). The preload (test/setup.ts) stops it after the last file; an exit handler stops it by pid
// if the process ends another way, and a server left by a process that was killed is stopped by the next start.
import { type Postgres, startPostgres, stopLeftovers } from "../../scripts/postgres/start";

/** Where the run's PostgreSQL is kept, so that the preload can stop it without importing (and starting) it. */
export const postgresHolder = globalThis as { relay402TestPostgres?: Postgres };

if (!postgresHolder.relay402TestPostgres) {
  stopLeftovers();
  const postgres = await startPostgres({ quiet: true, unref: true });
  postgresHolder.relay402TestPostgres = postgres;
  // Nothing can be awaited here; a no-op when the preload's afterAll stopped it already.
  process.once("exit", () => postgres.stopNow());
}

let databases = 0;

/** The run's PostgreSQL. */
export function getTestPostgres(): Postgres {
  return postgresHolder.relay402TestPostgres as Postgres;
}

/** A new, empty database on the run's PostgreSQL (one per test file, or per test that needs a clean one); its URL. */
export function createTestDatabase(label = "test"): Promise<string> {
  databases += 1;
  const name = `${label.toLowerCase().replace(/[^a-z0-9_]/g, "_")}_${process.pid}_${databases}`.slice(0, 63);
  return getTestPostgres().createDatabase(name);
}
