import { hostname } from "node:os";
import { createNetworks, type NetworkRuntime, type Networks } from "./chain/networks";
import type { Wiring } from "./chain/wiring-check";
import type { Config } from "./config/schema";
import { openDatabase } from "./db/open";
import { createSqliteStores, type Stores } from "./db/stores";
import type { DenyCounters, DenyPolicy } from "./deny/deny-counters";
import type { AnyFlow, FlowContext } from "./flow";
import { FLOWS, type FlowServices } from "./flows";
import { createDrain, type Drain } from "./lifecycle/drain";
import { liveLeases, type OrphanSweeper, type RecordFilter, senderOf, startOrphanSweeper } from "./lifecycle/orphans";
import { startStaleBroadcastResumer } from "./lifecycle/stale-broadcasts";
import type { Logger } from "./logger";
import { createServiceGauges, type ServiceGauges } from "./metrics/service-gauges";
import { createFundedApprovals } from "./onboarding/funded-approvals";
import { type PaymentRules, paymentRulesFor } from "./settlement/payment-rules";
import { type RelayerPort, relayerPorts } from "./settlement/relayer-port";
import { createPaymentSettler, type PaymentSettler } from "./settlement/settle-payment";
import { readBalances } from "./status/balances";
import { clientConfig } from "./status/client-config";
import { checkHealth } from "./status/health";
import type { Status } from "./status/routes";
import { smartWalletNetworks } from "./userops/flow-deps";
import { createInFlightUserOps, inFlightSweepMs } from "./userops/in-flight";
import { startIssuedUserOpPurge } from "./userops/issued-user-op-purge";
import { VERSION } from "./version";

/**
 * The service's parts, built once at start from a validated config and shared by every route: the kernels and
 * shared parts, and each flow's service under its name (src/flows.ts).
 */
export type Services = FlowServices & {
  /** Every flow served, with its service: what the HTTP app mounts and the wiring check asks (src/flows.ts). */
  flows: readonly { flow: AnyFlow; service: unknown }[];
  config: Config;
  version: string;
  /** Every store, on the SQLite file or on PostgreSQL (src/db/stores.ts). */
  stores: Stores;
  networks: Networks;
  logger: Logger;
  /** The settlement kernel: relayer authorizations settled through our executors. */
  settler: PaymentSettler;
  status: Status;
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
  wiring: Wiring = { unavailable: {} },
  stores: Stores = sqliteStoresOf(config),
  /** The flows to serve: src/flows.ts's list (a test may add a throwaway flow to it). */
  served: readonly AnyFlow[] = FLOWS,
): Services {
  const several = stores.kind === "postgres";
  const instanceId = `${hostname()}-${process.pid}-${crypto.randomUUID().slice(0, 8)}`;
  const networks = createNetworks(
    config,
    logger,
    wiring,
    several ? { store: stores.keyLeases, instanceId } : undefined,
  );
  const relayerFor = relayerPorts();
  const now = () => BigInt(Math.floor(Date.now() / 1000));
  const drain = createDrain();
  const deny = stores.deny;
  const rulesFor = (network: NetworkRuntime) => paymentRulesFor(network, deny);
  const settler = createPaymentSettler({
    store: stores.settlements,
    relayerFor,
    rulesFor,
    now,
    logger,
    onPayerRevert: (network, payer, reason) => deny.recordRevert(network.name, "payer", payer, reason),
  });
  const onboarding = createFundedApprovals({ store: stores.fundedApprovals, networks, deny, logger });
  const staleMs = orphanStaleMs(config);
  const inFlightUserOps = createInFlightUserOps({
    store: stores.issued,
    networks: () => smartWalletNetworks(networks),
    logger,
    now: () => Number(now()),
  });
  const context: FlowContext = {
    config,
    logger,
    networks,
    deny,
    now,
    relayerFor,
    rulesFor,
    settler,
    settlements: stores.settlements,
    issued: stores.issued,
    onboarding,
    inFlightUserOps,
    // Several instances: what another live instance is working on is not reconciled, only what nobody touched lately.
    ...(several ? { several: { reconcileBefore: () => new Date(Date.now() - staleMs).toISOString() } } : {}),
  };
  const flows = served.map((flow) => ({
    flow,
    service: flow.create(context, flow.store ? (stores as Record<string, unknown>)[flow.name] : undefined),
  }));
  for (const { flow, service } of flows) flow.start?.(service);
  const issuedPurge = startIssuedUserOpPurge({ store: stores.issued, logger, now: () => Number(now()) });
  inFlightUserOps.start(inFlightSweepMs(config));
  const reconcileAll = async (which?: RecordFilter) => {
    // Side by side: one key signs every kind, so an EOA settlement resumed here may wait on the lower nonce of an
    // x402 settlement or a deployment step; one after the other, it would wait out its receipt timeout first.
    const kinds = await Promise.allSettled([
      ...flows.map(({ flow, service }) => flow.reconcile?.(service, which)),
      onboarding.reconcile(which),
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
  // What a settle left broadcast after answering pending is resumed here once its receipt wait is long past (on
  // several instances, only what this instance's keys signed), so its outcome and event do not wait for a retry.
  const resumeStale = async (which: RecordFilter) => {
    const kinds = await Promise.allSettled([
      ...flows.map(({ flow, service }) => flow.resume?.(service, which)),
      onboarding.reconcile(which),
    ]);
    const failed = kinds.find((kind) => kind.status === "rejected");
    if (failed) throw failed.reason;
  };
  const resumer = startStaleBroadcastResumer({
    config,
    logger,
    reconcile: resumeStale,
    ...(several && {
      owns: async (record) => {
        const sender = await senderOf(record.rawTx);
        return (
          sender !== null && (await liveLeases(stores.keyLeases, record.network, instanceId)).get(sender) === "mine"
        );
      },
    }),
  });
  const services = {
    ...(Object.fromEntries(flows.map(({ flow, service }) => [flow.name, service])) as FlowServices),
    flows,
    config,
    version: VERSION,
    stores,
    networks,
    logger,
    settler,
    status: { health: (options) => checkHealth(services, options), config: () => clientConfig(services) },
    relayerFor,
    deny,
    paymentRulesFor: rulesFor,
    now,
    issuedPurge,
    drain,
    gauges: createServiceGauges({
      networks,
      drain,
      readBalances,
      flowGauges: flows.flatMap(({ flow, service }) => flow.gauges?.(service) ?? []),
    }),
    reconcile: async () => {
      if (sweeper) await sweeper.sweep();
      else await reconcileAll();
    },
    async stop() {
      sweeper?.stop();
      resumer.stop();
      issuedPurge.stop();
      await inFlightUserOps.stop();
      for (const { flow, service } of flows) await flow.stop?.(service);
      await networks.stop();
      await stores.close();
    },
  } satisfies Services as Services;
  return services;
}
