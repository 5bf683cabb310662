import { createNetworks, type NetworkRuntime, type Networks } from "./chain/networks";
import type { Wiring } from "./chain/wiring-check";
import type { Config } from "./config/schema";
import { asAsync } from "./db/async-port";
import { type Db, openDatabase } from "./db/open";
import type { DenyCounters } from "./deny/deny-counters";
import { createSqliteDenyCounters } from "./deny/sqlite-deny-counters";
import { createDeploymentStore } from "./deploy/deployment-store";
import { createDeployments, type Deployments } from "./deploy/deployments";
import { createIncognito, type Incognito } from "./incognito/incognito";
import { createLeafStore } from "./incognito/leaf-store";
import { createDrain, type Drain } from "./lifecycle/drain";
import type { Logger } from "./logger";
import { createServiceGauges, type ServiceGauges } from "./metrics/service-gauges";
import { type PaymentRules, paymentRulesFor } from "./payments/payment-rules";
import { createPayments, type Payments } from "./payments/payments";
import { createRelayerPort, type RelayerPort } from "./payments/relayer-port";
import { createPaymentSettler, type PaymentSettler } from "./payments/settle-payment";
import { createSettlementStore, type SettlementStore } from "./payments/settlement-store";
import { readBalances } from "./status/balances";
import { clientConfig } from "./status/client-config";
import { checkHealth } from "./status/health";
import type { Status } from "./status/routes";
import { createSwaps, type Swaps } from "./swap/swaps";
import { startIssuedUserOpPurge } from "./userops/issued-user-op-purge";
import { createIssuedUserOpStore } from "./userops/issued-user-op-store";
import { VERSION } from "./version";
import { createWalletPayments, type WalletPayments } from "./wallets/wallet-payments";
import { createX402Facilitator, type X402Facilitator } from "./x402/facilitator";
import { createX402SettlementStore } from "./x402/settlement-store";

/** The service's parts, built once at start from a validated config and shared by every route. */
export type Services = {
  config: Config;
  version: string;
  db: Db;
  networks: Networks;
  logger: Logger;
  store: SettlementStore;
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
  stop(): void;
};

/** `wiring`: what the start's wiring check found (swaps unavailable per network); tests may leave it out. */
export function createServices(config: Config, logger: Logger, wiring: Wiring = { swapUnavailable: {} }): Services {
  const db = openDatabase(config.databasePath);
  const networks = createNetworks(config, logger, wiring.swapUnavailable);
  const relayers = new Map<string, RelayerPort>();
  const relayerFor = (network: NetworkRuntime) => {
    let port = relayers.get(network.name);
    if (!port) {
      port = createRelayerPort(network.client, network.config.contracts.relayer);
      relayers.set(network.name, port);
    }
    return port;
  };
  const now = () => BigInt(Math.floor(Date.now() / 1000));
  const drain = createDrain();
  const store = createSettlementStore(db);
  const deny = createSqliteDenyCounters(db, {
    afterReverts: config.denyAfterReverts,
    windowSeconds: config.denyWindowSeconds,
    now: () => Number(now()),
  });
  const settler = createPaymentSettler({
    store: asAsync(store),
    relayerFor,
    rulesFor: (network) => paymentRulesFor(network, deny),
    now,
    logger,
    onPayerRevert: (network, payer, reason) => deny.recordRevert(network.name, "payer", payer, reason),
  });
  const wallets = createWalletPayments({
    store: asAsync(createIssuedUserOpStore(db)),
    networks,
    deny,
    paymasterValiditySeconds: config.paymasterValiditySeconds,
  });
  const incognito = createIncognito({
    leaves: asAsync(createLeafStore(db)),
    networks,
    store: wallets.store,
    deny,
    paymasterValiditySeconds: config.paymasterValiditySeconds,
    logger,
  });
  incognito.start();
  const issuedPurge = startIssuedUserOpPurge({ store: wallets.store, logger, now: () => Number(now()) });
  const deployments = createDeployments({
    config,
    store: asAsync(createDeploymentStore(db)),
    networks,
    settler,
    settlements: asAsync(store),
    issued: wallets.store,
    relayerFor,
    deny,
    now,
    logger,
  });
  const payments = createPayments({
    networks,
    relayerFor,
    rulesFor: (network) => paymentRulesFor(network, deny),
    now,
    settler,
  });
  const x402 = createX402Facilitator({
    networks,
    store: asAsync(createX402SettlementStore(db)),
    rulesFor: (network) => paymentRulesFor(network, deny),
    now,
    logger,
    onPayerRevert: (network, payer, reason) => deny.recordRevert(network.name, "payer", payer, reason),
  });
  const services: Services = {
    config,
    version: VERSION,
    db,
    networks,
    logger,
    store,
    settler,
    payments,
    x402,
    status: { health: () => checkHealth(services), config: () => clientConfig(services) },
    wallets,
    deployments,
    incognito,
    swaps: createSwaps({
      db,
      networks,
      relayerFor,
      deny,
      now,
      logger,
      issued: wallets.store,
      paymasterValiditySeconds: config.paymasterValiditySeconds,
    }),
    relayerFor,
    deny,
    paymentRulesFor: (network) => paymentRulesFor(network, deny),
    now,
    issuedPurge,
    drain,
    gauges: createServiceGauges({ networks, drain, readBalances }),
    stop() {
      issuedPurge.stop();
      incognito.stop();
      networks.stop();
      db.$client.close();
    },
  };
  return services;
}
