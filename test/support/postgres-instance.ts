// One "instance" of the service's flows on a shared PostgreSQL, inside the test process: its own connection pool,
// networks and executor (one devnet executor key of its own per network, `keyIndex`), as a separate service process
// on one database would have; only the database is shared. Tests build the flows they exercise on top of it.
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devnetKeys } from "../../scripts/devnet/keys";
import { configFromManifest } from "../../scripts/devnet/service-config";
import { createNetworks, type NetworkRuntime } from "../../src/chain/networks";
import { openPostgres } from "../../src/db/postgres/open";
import { createPostgresDenyCounters } from "../../src/deny/postgres-deny-counters";
import { createLogger } from "../../src/logger";
import { denyPolicyOf } from "../../src/services";
import { paymentRulesFor } from "../../src/settlement/payment-rules";
import { relayerPorts } from "../../src/settlement/relayer-port";
import { getTestDevnet } from "./devnet";

export async function postgresInstanceBase(url: string, keyIndex: number) {
  const config = configFromManifest(getTestDevnet().devnet.manifest, { databasePath: ":memory:" });
  const key = devnetKeys.executors[keyIndex] as Hex;
  for (const name of ["bsc", "base"] as const) {
    const networkConfig = config.networks[name];
    if (networkConfig) networkConfig.executorKeys = [key];
  }
  const logger = createLogger({ silent: true });
  const db = await openPostgres(url, { max: 8 });
  const networks = createNetworks(config, logger);
  const deny = createPostgresDenyCounters(db, denyPolicyOf(config));
  let stopped = false;
  return {
    config,
    executor: privateKeyToAccount(key).address,
    logger,
    db,
    networks,
    deny,
    now: () => BigInt(Math.floor(Date.now() / 1000)),
    relayerFor: relayerPorts(),
    rulesFor: (runtime: NetworkRuntime) => paymentRulesFor(runtime, deny),
    async stop() {
      if (stopped) return;
      stopped = true;
      await networks.stop();
      await db.$client.close();
    },
  };
}
