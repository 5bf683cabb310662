import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeConfig } from "../../src/config/load";
import { buildContracts } from "../devnet/build";
import { freePort } from "../devnet/ports";
import { configFromManifest } from "../devnet/service-config";
import { type DevnetManifest, type NetworkName, startDevnet } from "../devnet/start";

/** What a benchmark undoes at its end, last first. */
export type Cleanups = (() => unknown)[];

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
 * proxy), with no rate limit and no request log.
 */
export async function benchServiceConfig(
  manifest: DevnetManifest,
  network: NetworkName,
  rpcUrl: string,
  databasePath: string,
) {
  const config = encodeConfig(
    configFromManifest(
      {
        ...manifest,
        service: `http://127.0.0.1:${await freePort()}`,
        networks: { ...manifest.networks, [network]: { ...manifest.networks[network], rpcUrl } },
      },
      { databasePath, rateLimitPerMinute: 10_000_000, logRequests: false },
    ),
  ) as { networks: Record<string, { contracts: Record<string, unknown> }> };
  for (const name of Object.keys(config.networks)) if (name !== network) delete config.networks[name];
  return config;
}
