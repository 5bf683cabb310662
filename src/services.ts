import { hostname } from "node:os";
import { createNetworks, type NetworkRuntime, type Networks } from "./chain/networks";
import type { Wiring } from "./chain/wiring-check";
import type { Config } from "./config/schema";
import { openDatabase } from "./db/open";
import { createSqliteStores, type Stores } from "./db/stores";
import type { DenyCounters, DenyPolicy } from "./deny/deny-counters";
import { createDeployments, type Deployments } from "./deploy/deployments";
import { createIncognito, type Incognito } from "./incognito/incognito";
import { createDrain, type Drain } from "./lifecycle/drain";
import { type OrphanSweeper, type RecordFilter, startOrphanSweeper } from "./lifecycle/orphans";
import type { Logger } from "./logger";
import { createServiceGauges, type ServiceGauges } from "./metrics/service-gauges";
import { type PaymentRules, paymentRulesFor } from "./payments/payment-rules";
import { createPayments, type Payments } from "./payments/payments";
import { reconcileSettlements } from "./payments/reconcile-settlements";
import { type RelayerPort, relayerPorts } from "./payments/relayer-port";
import { createPaymentSettler, type PaymentSettler } from "./payments/settle-payment";
import { readBalances } from "./status/balances";
import { clientConfig } from "./status/client-config";
import { checkHealth } from "./status/health";
import type { Status } from "./status/routes";
import { createSwaps, type Swaps } from "./swap/swaps";
import { startIssuedUserOpPurge } from "./userops/issued-user-op-purge";
import { VERSION } from "./version";
import { createWalletPayments, type WalletPayments } from "./wallets/wallet-payments";
import { createX402Facilitator, type X402Facilitator } from "./x402/facilitator";

/** The service's parts, built once at start from a validated config and shared by every route. */
export type Services = {
  config: Config;
  version: string;
  /** Every store, on the SQLite file or on PostgreSQL (src/db/stores.ts). */
  stores: Stores;
  networks: Networks;
  logger: Logger;
  settler: PaymentSettler;
  payments: Payments;
  /** x402 bodies on /verify and /settle (scheme exact, EIP-3009). */
  x402: X402Facilitator;
  status: Status;
  wallets: WalletPayments;
  deployments: Deployments;
  /** Shield and unshield through the privacy pool, its leaves and circuit. */
  incognito: Incognito;
  /** Swap quotes and EOA swaps through the whitelisted DEX routers. */
  swaps: Swaps;
  relayerFor(network: NetworkRuntime): RelayerPort;
  /** Reverts per payer and wallet owner; repeat offenders are refused. */
  deny: DenyCounters;
  /** The service's own refusals of an EOA payment on this network (minimum value, validBefore margin, denied payers). */
  paymentRulesFor(network: NetworkRuntime): PaymentRules;
  /** Unix seconds; the single clock of verify checks. */
  now(): bigint;
  /** Deletes issued UserOps that expired unsettled (every minute; `run` on demand). */
  issuedPurge: { run(): Promise<number> };
  /** Graceful shutdown: work in flight, and whether new settles are refused (src/lifecycle/drain.ts). */
  drain: Drain;
  /** The gauges /metrics reads at scrape time (balances, in-flight transactions, drain state). */
  gauges: ServiceGauges;
  /**
   * Finishes what was left unfinished: on SQLite every record (the previous process is gone); on PostgreSQL only
   * other instances' orphans, under a database lock (src/lifecycle/orphans.ts). Called once at start.
   */
  reconcile(): Promise<void>;
  /** Stops pollers, indexers and executors, releases the key leases, then closes the database. */
  stop(): Promise<void>;
};

/** The single instance's SQLite stores, from `databasePath`. */
export function sqliteStoresOf(config: Config): Stores {
  return createSqliteStores(openDatabase(config.databasePath), denyPolicyOf(config));
}

export const denyPolicyOf = (config: Config): DenyPolicy => ({
  afterReverts: config.denyAfterReverts,
  windowSeconds: config.denyWindowSeconds,
  swaps: { afterReverts: config.denySwapsAfterReverts, windowSeconds: config.denySwapsWindowSeconds },
  now: () => Math.floor(Date.now() / 1000),
});

/**
 * How long a record nobody wrote may still be a live instance's (src/lifecycle/orphans.ts): longer than a settle's
 * prepare and its receipt wait on any network, and at least two lease lifetimes.
 */
export const orphanStaleMs = (config: Config) =>
  Math.max(
    2 * config.keyLeaseMs,
    ...Object.values(config.networks).map((network) => (network?.receiptTimeoutMs ?? 0) + 30_000),
  );

/**
 * `wiring`: what the start's wiring check found (swaps unavailable per network); tests may leave it out.
 * `stores`: the database (src/db/stores.ts); the SQLite file of `databasePath` unless given. On PostgreSQL the
 * executors send only with the keys this instance leases, and other instances' orphans are swept periodically.
 */
export function createServices(
  config: Config,
  logger: Logger,
  wiring: Wiring = { swapUnavailable: {} },
  stores: Stores = sqliteStoresOf(config),
): Services {
  const several = stores.kind === "postgres";
  const instanceId = `${hostname()}-${process.pid}-${crypto.randomUUID().slice(0, 8)}`;
  const networks = createNetworks(
    config,
    logger,
    wiring.swapUnavailable,
    several ? { store: stores.keyLeases, instanceId } : undefined,
  );
  const relayerFor = relayerPorts();
  const now = () => BigInt(Math.floor(Date.now() / 1000));
  const drain = createDrain();
  const deny = stores.deny;
  const settler = createPaymentSettler({
    store: stores.settlements,
    relayerFor,
    rulesFor: (network) => paymentRulesFor(network, deny),
    now,
    logger,
    onPayerRevert: (network, payer, reason) => deny.recordRevert(network.name, "payer", payer, reason),
  });
  const wallets = createWalletPayments({
    store: stores.issued,
    networks,
    deny,
    paymasterValiditySeconds: config.paymasterValiditySeconds,
  });
  const incognito = createIncognito({
    leaves: stores.leaves,
    networks,
    store: wallets.store,
    deny,
    paymasterValiditySeconds: config.paymasterValiditySeconds,
    logger,
  });
  incognito.start();
  const issuedPurge = startIssuedUserOpPurge({ store: wallets.store, logger, now: () => Number(now()) });
  const staleMs = orphanStaleMs(config);
  const deployments = createDeployments(
    {
      config,
      store: stores.deployments,
      networks,
      settler,
      settlements: stores.settlements,
      issued: wallets.store,
      relayerFor,
      deny,
      now,
      logger,
    },
    // Several instances: what another live instance is deploying is not reconciled, only what nobody touched lately.
    several ? { reconcileBefore: () => new Date(Date.now() - staleMs).toISOString() } : {},
  );
  const payments = createPayments({
    networks,
    relayerFor,
    rulesFor: (network) => paymentRulesFor(network, deny),
    now,
    settler,
  });
  const x402 = createX402Facilitator({
    networks,
    store: stores.x402,
    rulesFor: (network) => paymentRulesFor(network, deny),
    now,
    logger,
    onPayerRevert: (network, payer, reason) => deny.recordRevert(network.name, "payer", payer, reason),
  });
  const swaps = createSwaps({
    store: stores.swaps,
    networks,
    relayerFor,
    deny,
    now,
    logger,
    issued: wallets.store,
    paymasterValiditySeconds: config.paymasterValiditySeconds,
  });
  const reconcileAll = async (which?: RecordFilter) => {
    // Side by side: one key signs every kind, so an EOA settlement resumed here may wait on the lower nonce of an
    // x402 settlement or a deployment step; one after the other, it would wait out its receipt timeout first.
    const kinds = await Promise.allSettled([
      reconcileSettlements({ networks, settler, logger, ...(which ? { which } : {}) }),
      x402.reconcile(which),
      swaps.reconcile(which),
      // Several instances only: one instance reconciles its deployments when they are created, beside these.
      deployments.reconcile(),
    ]);
    const failed = kinds.find((kind) => kind.status === "rejected");
    if (failed) throw failed.reason;
  };
  let sweeper: OrphanSweeper | undefined;
  if (several) {
    sweeper = startOrphanSweeper({
      leases: stores.keyLeases,
      instanceId,
      intervalMs: Math.max(5_000, config.keyLeaseMs),
      staleMs,
      // A dead sweeper's lock is free when its keys are: another instance resumes their records at once.
      lockTtlMs: config.keyLeaseMs,
      reconcile: reconcileAll,
      logger,
    });
    const sweep = sweeper;
    // A key taken over from a dead instance is used only once what it left sent from that key is resolved.
    for (const network of networks.all()) {
      network.executor.onKeyTakenOver(async (address) => {
        if (!(await sweep.sweep(new Set([address.toLowerCase()]))))
          throw new Error("another instance is reconciling; the takeover is resolved at the next heartbeat");
      });
    }
  }
  const services: Services = {
    config,
    version: VERSION,
    stores,
    networks,
    logger,
    settler,
    payments,
    x402,
    status: { health: (options) => checkHealth(services, options), config: () => clientConfig(services) },
    wallets,
    deployments,
    incognito,
    swaps,
    relayerFor,
    deny,
    paymentRulesFor: (network) => paymentRulesFor(network, deny),
    now,
    issuedPurge,
    drain,
    gauges: createServiceGauges({ networks, drain, readBalances }),
    reconcile: async () => {
      if (sweeper) await sweeper.sweep();
      else await reconcileAll();
    },
    async stop() {
      sweeper?.stop();
      issuedPurge.stop();
      incognito.stop();
      await networks.stop();
      await stores.close();
    },
  };
  return services;
}
