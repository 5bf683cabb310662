import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeConfig } from "../../src/config/load";
import type { ConfigInput } from "../../src/config/schema";
import { buildContracts } from "../devnet/build";
import { freePort } from "../devnet/ports";
import { configFromManifest } from "../devnet/service-config";
import { type DevnetManifest, type NetworkName, startDevnet } from "../devnet/start";

/** What a benchmark undoes at its end, last first. */
export type Cleanups = (() => unknown)[];

/**
 * Runs `cleanups` once, last first, each step's failure ignored; SIGINT and SIGTERM run them too and exit. Answers
 * the run, for the bench's `finally` (a second call awaits the first run).
 */
export function cleanUpOnExit(cleanups: Cleanups): () => Promise<void> {
  let cleaning: Promise<void> | null = null;
  const cleanUp = () => {
    cleaning ??= (async () => {
      for (const step of cleanups.reverse())
        await Promise.resolve()
          .then(step)
          .catch(() => undefined);
    })();
    return cleaning;
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.on(signal, () => {
      void cleanUp().finally(() => process.exit(130));
    });
  return cleanUp;
}

/** Progress lines on stderr, timed from now, so that a phase that fails or hangs is named. */
export function progress(): (what: string) => void {
  const began = performance.now();
  return (what) => console.error(`[${((performance.now() - began) / 1000).toFixed(1)} s] ${what}`);
}

/** The devnet a benchmark runs on, built and started in a temporary directory that goes with it. */
export async function startBenchDevnet(name: string, cleanups: Cleanups) {
  buildContracts();
  const dir = mkdtempSync(join(tmpdir(), `relay402-${name}-`));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const devnet = await startDevnet({ dir, quiet: true });
  cleanups.push(() => devnet.stop());
  return { devnet, dir };
}

/**
 * relay402's config for a benchmark's service process: the devnet's, on `network` only (the other network's
 * pollers would cost the service CPU that no figure is about), reaching the chain through `rpcUrl` (a counting
 * proxy), with no rate limit and no request log; `overrides` on top (a PostgreSQL database, key leases).
 */
export async function benchServiceConfig(
  manifest: DevnetManifest,
  network: NetworkName,
  rpcUrl: string,
  databasePath: string,
  overrides: Partial<ConfigInput> = {},
) {
  const config = encodeConfig(
    configFromManifest(
      {
        ...manifest,
        service: `http://127.0.0.1:${await freePort()}`,
        networks: { ...manifest.networks, [network]: { ...manifest.networks[network], rpcUrl } },
      },
      { databasePath, rateLimitPerMinute: 10_000_000, logRequests: false, ...overrides },
    ),
  ) as { networks: Record<string, { contracts: Record<string, unknown> }> };
  for (const name of Object.keys(config.networks)) if (name !== network) delete config.networks[name];
  return config;
}
