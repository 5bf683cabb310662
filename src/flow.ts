import type { AnyElysia } from "elysia";
import type { NetworkRuntime, Networks } from "./chain/networks";
import { type Capability, hasCapability } from "./config/capabilities";
import type { MerchantKey } from "./config/merchant-keys";
import type { Config, NetworkConfig, NetworkName } from "./config/schema";
import type { Db } from "./db/open";
import type { PgDb } from "./db/postgres/open";
import type { DenyCounters } from "./deny/deny-counters";
import type { FlowOpenApi } from "./examples";
import type { AdminGuard, FlowKey, FlowKeyGuard } from "./http/admin-guard";
import type { RecordFilter } from "./lifecycle/orphans";
import type { Logger } from "./logger";
import type { FundedApprovals } from "./onboarding/funded-approvals";
import type { PaymentRules } from "./settlement/payment-rules";
import type { RelayerPort } from "./settlement/relayer-port";
import type { PaymentSettler } from "./settlement/settle-payment";
import type { AsyncSettlementStore } from "./settlement/settlement-store-postgres";
import type { InFlightUserOps } from "./userops/in-flight";
import type { AsyncIssuedUserOpStore } from "./userops/issued-user-op-store";

/**
 * What every flow may use, built once at start by the service (src/services.ts): the two kernels (the relayer
 * authorizations' settler and the issued UserOps every wallet flow shares) and the shared parts around them.
 */
export type FlowContext = {
  config: Config;
  logger: Logger;
  networks: Networks;
  deny: DenyCounters;
  /** Unix seconds; the single clock of verify checks. */
  now(): bigint;
  relayerFor(network: NetworkRuntime): RelayerPort;
  /** The service's own refusals of a relayer authorization on this network (minimum value, margins, denied payers). */
  rulesFor(network: NetworkRuntime): PaymentRules;
  /** The settlement kernel: relayer authorizations settled through our executors (src/settlement/). */
  settler: PaymentSettler;
  settlements: AsyncSettlementStore;
  /** The UserOp kernel's store: UserOps issued and not yet settled, across every wallet flow (src/userops/). */
  issued: AsyncIssuedUserOpStore;
  /** The funding kernel: signed approves of payers without native coins, funded and broadcast (src/onboarding/). */
  onboarding: FundedApprovals;
  /** The UserOp kernel's sweep of UserOps left in flight after a 202: each UserOp flow registers its finisher. */
  inFlightUserOps: Pick<InFlightUserOps, "register">;
  /**
   * Several instances on one PostgreSQL: records another live instance may still be working on are not
   * reconciled, only what nobody wrote since `reconcileBefore()`.
   */
  several?: { reconcileBefore(): string };
};

/**
 * A flow's own store on either database; the service opens one of the two at start (src/db/stores.ts). The
 * PostgreSQL adapter is loaded only when the service runs on PostgreSQL (`postgres()` imports it), so that one
 * instance on SQLite never loads drizzle's pg-core nor any PostgreSQL store.
 */
export type FlowStore<T> = { sqlite(db: Db): T; postgres(): Promise<(db: PgDb) => T> };

/** A gauge a flow adds to /metrics: its samples are read (from the database, say) when /metrics is scraped. */
export type FlowGauge = {
  name: string;
  help: string;
  read(): Promise<{ labels?: Record<string, string>; value: number | bigint }[]>;
};

/**
 * Another reading of a shared route's body: x402 bodies arrive on the EOA flow's /verify and /settle and are told
 * apart by their shape. `flow` is the settle metric's label for such a body.
 */
export type BodyReader = {
  flow: string;
  /** The shared routes (without the /api/v1 prefix) whose bodies it reads. */
  paths: readonly string[];
  matches(body: unknown): boolean;
  verify(body: unknown): Promise<unknown>;
  settle(body: unknown): Promise<unknown>;
  /** The HTTP status of one of its answers, when not 200 (x402's payment-identifier conflict is 409). */
  statusOf?(answer: unknown): number;
};

/** What the routes of a flow are given besides its own service. */
export type RouteContext = {
  config: Config;
  networks: Networks;
  /** The admin key check (deployments spend the service's money on request). */
  adminGuard: AdminGuard;
  /** Other flows' readings of shared routes' bodies (see BodyReader). */
  readers: readonly BodyReader[];
  /** The guard of the flow's own key (Flow.key): routes declared `keyed: true` need it. */
  keyGuard(key: FlowKey<Config>): FlowKeyGuard;
  /** Who a request's key says it is: the admin (`x-admin-api-key`), a merchant (`x-api-key`), or nobody known. */
  keyHolder(request: Request): "admin" | MerchantKey | undefined;
};

/**
 * A payment flow as the service sees it: a feature folder declares this in its `flow.ts`, and the list in
 * src/flows.ts is the only place that names it. Everything is optional except the name, how to build the flow's
 * service, and its routes.
 */
export type Flow<Name extends string, Service, Store = undefined> = {
  name: Name;
  /** The flow's own records, on whichever database the service opened. */
  store?: FlowStore<Store>;
  create(context: FlowContext, store: Store): Service;
  routes(service: Service, context: RouteContext): AnyElysia;
  /**
   * What the OpenAPI document shows of it (src/http/openapi/document.ts): its tag, the examples of its routes'
   * bodies, and the bodies it reads on other flows' routes (see `readers`).
   */
  openapi?: FlowOpenApi;
  /**
   * The POST paths (without the /api/v1 prefix) that may send a transaction or a UserOp, with their settle metric
   * label: refused while the service drains, counted until they answer, and timed by the settle histogram.
   */
  sending?: Readonly<Record<string, string>>;
  /**
   * A read key of its own guarding its routes under a path (the dashboard's): a wrong one costs the client's
   * rate-limit budget what a wrong admin key does.
   */
  key?: FlowKey<Config>;
  /**
   * Paths (without the /api/v1 prefix) whose answer to a request carrying a key shows what only that key may see
   * (a listing of the admin's or one merchant's records): never cached, and varying by the key headers.
   */
  keyedPaths?: readonly string[];
  /** Gauges of its own on /metrics, read from its service at scrape time (cached like the balances). */
  gauges?(service: Service): FlowGauge[];
  /** Its readings of shared routes' bodies, given to every flow's routes. */
  readers?(service: Service): BodyReader[];
  /** Finishes what a previous process left unfinished (at start; on several instances, others' orphans). */
  reconcile?(service: Service, which?: RecordFilter): Promise<void>;
  /**
   * Resumes the records `which` selects, and only those: what a settle left broadcast after answering pending
   * (src/lifecycle/stale-broadcasts.ts). A flow whose reconciliation cannot be narrowed to some records has none.
   */
  resume?(service: Service, which: RecordFilter): Promise<void>;
  /** Background work (indexers, pollers), started once the service is built and stopped before the database closes. */
  start?(service: Service): void;
  /** Called after each answer of a sending route (any flow's): work that follows a settle, done at once. */
  afterSending?(service: Service): void;
  stop?(service: Service): void | Promise<void>;
  /**
   * The capability this flow serves (src/config/capabilities.ts): the settings that enable it on a network, the
   * name its refusals give in `details.capability`, the key of its reason in `network.unavailable`.
   */
  capability?: Capability;
  /**
   * Whether a network's config enables this flow there; absent: its capability's settings are all set (or, with no
   * capability, every configured network). The start logs the flows each network serves.
   */
  enabledOn?(network: NetworkConfig): boolean;
  /**
   * Why this flow cannot work on a network although it is configured there (checked once at start, on the
   * network's RPC): the flow is then refused on that network with this reason, and the rest of the service runs.
   */
  unavailableOn?(
    name: NetworkName,
    network: NetworkConfig,
    call: (to: `0x${string}`, data: `0x${string}`) => Promise<`0x${string}` | undefined>,
    /** The runtime code at an address (eth_getCode at the latest block). */
    codeAt: (address: `0x${string}`) => Promise<`0x${string}` | undefined>,
  ): Promise<string | undefined>;
};

/** Whether a flow is enabled on a network by its config (its own `enabledOn`, else its capability's settings). */
export const flowEnabledOn = (flow: AnyFlow, network: NetworkConfig): boolean =>
  flow.enabledOn?.(network) ?? (flow.capability ? hasCapability(network, flow.capability) : true);

// The list holds flows of every service and store type.
export type AnyFlow = Flow<string, any, any>;
