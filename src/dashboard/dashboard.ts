import type { FlowContext } from "../flow";
import { shortReason } from "../logger";
import { isNetworkName, presetOf } from "../networks";
import { readBalances } from "../status/balances";
import { ATTENTION_ROWS, deniedNow, errorsByReason, networkAttention, STUCK_AFTER_MS } from "./attention";
import type { DashboardStore } from "./dashboard-store";
import {
  flowFigures,
  type Group,
  gasCostOf,
  groupsOf,
  latencyOf,
  RANGES,
  type RangeName,
  series,
  sumByToken,
} from "./figures";
import { fundingsSince, onboardingFigures } from "./onboarding";
import { DASHBOARD_FLOWS, type DashboardFlow, type DashboardStatus, type SettlementRow } from "./records";
import { HOUR_MS, rangeGroups, refreshRollups } from "./rollups";
import { createTokenSymbols, type TokenSymbols } from "./symbols";

/** Stuck records the gauge counts at most (past that, the dashboard's list says more). */
export const MAX_STUCK_COUNTED = 10_000;

/** How often each instance brings the rollups up to date (a summary does too, before it reads them). */
export const ROLLUP_REFRESH_MS = 5 * 60_000;

/** Most rows one page of recent settlements answers. */
export const MAX_PAGE = 200;

export type SettlementsQuery = {
  network?: string;
  flow?: DashboardFlow;
  status?: DashboardStatus;
  payer?: string;
  payee?: string;
  /** Rows created before this ISO time (the previous page's `next`). */
  before?: string;
  limit?: number;
};

/** A transaction's page on the network's block explorer: the config's pattern, else the network preset's. */
export function explorerTxUrl(context: Pick<FlowContext, "config">, network: string, hash: string | null) {
  if (hash === null) return null;
  const configured = (context.config.dashboard?.explorerTxUrl as Record<string, string | undefined> | undefined)?.[
    network
  ];
  const pattern = configured ?? (isNetworkName(network) ? presetOf(network).explorer.tx : undefined);
  return pattern ? pattern.replace("{hash}", hash) : null;
}

const UNKNOWN = "unknown" as const;

/**
 * One settlement as the table shows it: figures a row did not record are "unknown", never 0. `symbol` is the
 * token's (symbols.ts), null when unknown.
 */
export function settlementView(context: Pick<FlowContext, "config">, row: SettlementRow, symbol: string | null = null) {
  const gas = gasCostOf(row);
  return {
    paymentId: row.paymentId,
    network: row.network,
    flow: row.flow,
    status: row.status,
    token: row.token,
    symbol,
    amount: row.amount,
    fee: row.fee,
    payer: row.payer,
    payee: row.payee,
    txHash: row.txHash,
    block: row.block,
    explorerUrl: explorerTxUrl(context, row.network, row.txHash),
    gasWei: row.source === "issued_user_ops" ? null : row.status === "pending" ? null : (gas?.toString() ?? UNKNOWN),
    sponsoredWei:
      row.source !== "issued_user_ops" ? null : row.status === "pending" ? null : (row.sponsored ?? UNKNOWN),
    latencyMs: latencyOf(row),
    createdAt: row.createdAt,
    error: row.error,
  };
}

/**
 * A range's figures ending at `to`, exact bigints on both databases: the last hour from its rows (5-minute buckets),
 * a day or a month from the hourly rollups and the rows of the hours not stored (rollups.ts), brought up to date
 * first. (PostgreSQL summing the rows itself was slower: three grouped scans of the rows and text-to-time parsing.)
 */
export async function rangeFigures(
  store: DashboardStore,
  range: RangeName,
  filter: { network?: string; flow?: DashboardFlow },
  to: number,
  /** Brings the rollups up to date; the service's logs a failure and goes on (hours not stored are read as rows). */
  refresh: () => Promise<unknown> = () => refreshRollups(store, to),
) {
  const { ms, bucketMs } = RANGES[range];
  const from = to - ms;
  let groups: Group[];
  if (bucketMs < HOUR_MS)
    groups = groupsOf(await store.rows({ since: new Date(from).toISOString(), ...filter }), bucketMs);
  else {
    await refresh();
    groups = await rangeGroups(store, from, to, filter);
  }
  const settlements = groups.reduce((sum, group) => sum + group.success + group.failed + group.pending, 0);
  return { flows: flowFigures(groups), series: series(groups, from, to, bucketMs), settlements };
}

/** Rows as the table shows them, each with its token's symbol. */
async function viewsOf(context: Pick<FlowContext, "config">, symbols: TokenSymbols, rows: readonly SettlementRow[]) {
  const byNetwork = new Map<string, Map<string, string | null>>();
  for (const network of new Set(rows.map((row) => row.network)))
    byNetwork.set(
      network,
      await symbols.of(
        network,
        rows.filter((row) => row.network === network).map((row) => row.token),
      ),
    );
  return rows.map((row) =>
    settlementView(
      context,
      row,
      row.token === null ? null : (byNetwork.get(row.network)?.get(row.token.toLowerCase()) ?? null),
    ),
  );
}

type TokenAmount = { token: string; amount: string };
type Labelled = TokenAmount & { symbol: string | null };

/** Each flow's volume and fees with their tokens' symbols; the totals take the symbol a flow found. */
async function withSymbols<F extends { network: string; volume: TokenAmount[]; fees: TokenAmount[] }>(
  symbols: TokenSymbols,
  flows: readonly F[],
) {
  const found = new Map<string, string | null>();
  const labelled = await Promise.all(
    flows.map(async (each) => {
      const known = await symbols.of(
        each.network,
        [...each.volume, ...each.fees].map((entry) => entry.token),
      );
      const label = (list: TokenAmount[]): Labelled[] =>
        list.map((entry) => {
          const symbol = known.get(entry.token.toLowerCase()) ?? null;
          if (symbol !== null) found.set(entry.token.toLowerCase(), symbol);
          return { ...entry, symbol };
        });
      return { ...each, volume: label(each.volume), fees: label(each.fees) };
    }),
  );
  const total = (list: TokenAmount[]): Labelled[] =>
    list.map((entry) => ({ ...entry, symbol: found.get(entry.token.toLowerCase()) ?? null }));
  return { flows: labelled, total };
}

export function createDashboard(context: FlowContext, store: DashboardStore) {
  const sinceIso = (ms: number) => new Date(Date.now() - ms).toISOString();
  const symbols = createTokenSymbols(context);
  let refresher: ReturnType<typeof setInterval> | undefined;
  /**
   * The refresh under way, if any: a request and the background share it (never two building the same hours in one
   * process), and stop waits for it, so that it never reads a closed database.
   */
  let running: Promise<unknown> | undefined;
  const refresh = () => {
    running ??= refreshRollups(store, Date.now())
      .catch((error) => context.logger.warn({ event: "dashboard_rollups_failed", reason: shortReason(error) }))
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  /** Zero-gas onboarding's cost per network (onboarding.ts): networks that fund approves or funded some in the range. */
  const onboarding = async (from: string, to: number, network?: string) => {
    const figures = await Promise.all(
      context.networks
        .all()
        .filter((each) => network === undefined || each.name === network)
        .map(async (each) => {
          const budget = each.config.fundedApprove;
          const rows = await store.fundings(each.name, fundingsSince(from, budget, to));
          return onboardingFigures(each.name, budget, rows, from, to);
        }),
    );
    return figures.filter((each) => each.enabled || each.fundings > 0 || BigInt(each.budget.spentWei) > 0n);
  };
  return {
    /** Keeps the hourly rollups built in the background, so that a request rarely builds more than an hour. */
    start() {
      void refresh();
      refresher = setInterval(refresh, ROLLUP_REFRESH_MS);
      refresher.unref?.();
    },
    async stop() {
      clearInterval(refresher);
      await running;
    },

    /** Counts, volume, fees, gas and latency per network and flow over a range, with its chart series. */
    async summary(range: RangeName, filter: { network?: string; flow?: DashboardFlow } = {}) {
      const { ms } = RANGES[range];
      const to = Date.now();
      const from = new Date(to - ms).toISOString();
      const [figures, funded] = await Promise.all([
        rangeFigures(store, range, filter, to, refresh),
        onboarding(from, to, filter.network),
      ]);
      const { flows, total } = await withSymbols(symbols, figures.flows);
      return {
        range,
        from,
        to: new Date(to).toISOString(),
        flows,
        totals: {
          settlements: figures.settlements,
          volume: total(sumByToken(flows.flatMap((each) => each.volume))),
          fees: total(sumByToken(flows.flatMap((each) => each.fees))),
          spentWeiByNetwork: Object.fromEntries(
            [...new Set(flows.map((each) => each.network))].map((network) => [
              network,
              flows
                .filter((each) => each.network === network)
                .reduce((sum, each) => sum + BigInt(each.spentWei), 0n)
                .toString(),
            ]),
          ),
          unknownGas: flows.reduce((sum, each) => sum + each.gas.unknown + each.sponsored.unknown, 0),
        },
        series: figures.series,
        onboarding: funded,
      };
    },

    /** Recent settlements, newest first, filtered; `next` is the `before` of the following page. */
    async settlements(query: SettlementsQuery) {
      const limit = Math.min(MAX_PAGE, Math.max(1, query.limit ?? 50));
      const { limit: _, ...filter } = query;
      const rows = await store.rows(filter, limit);
      return {
        settlements: await viewsOf(context, symbols, rows),
        next: rows.length === limit ? (rows.at(-1)?.createdAt ?? null) : null,
      };
    },

    /**
     * Records of the last 30 days still pending after STUCK_AFTER_MS, per network and flow (the orphan sweep's
     * view): /metrics's relay402_stuck_records. Every network and flow that has none answers 0, so an alert rule sees
     * the series fall back.
     */
    async stuckCounts() {
      const rows = await store.rows(
        { status: "pending", before: sinceIso(STUCK_AFTER_MS), since: sinceIso(RANGES.month.ms) },
        MAX_STUCK_COUNTED,
      );
      const counts = new Map<string, number>();
      for (const network of context.networks.all())
        for (const flow of DASHBOARD_FLOWS) counts.set(`${network.name} ${flow}`, 0);
      for (const row of rows)
        counts.set(`${row.network} ${row.flow}`, (counts.get(`${row.network} ${row.flow}`) ?? 0) + 1);
      return [...counts].map(([key, value]) => {
        const [network, flow] = key.split(" ") as [string, string];
        return { labels: { network, flow }, value };
      });
    },

    /** Executors, paymaster deposits, records not concluded, denied payers and failure reasons. */
    async attention() {
      const [day, month, leases, denied, pending] = await Promise.all([
        // The executors' spend and the failures of a day; the sponsored UserOps of a month (the deposit's average).
        store.rows({ since: sinceIso(RANGES.day.ms) }),
        refresh().then(() =>
          rangeGroups(store, Date.now() - RANGES.month.ms, Date.now(), { sources: ["issued_user_ops"] }),
        ),
        store.leases(),
        deniedNow(context.config, store),
        store.rows({ status: "pending", before: sinceIso(STUCK_AFTER_MS) }, ATTENTION_ROWS),
      ]);
      const networks = await Promise.all(
        context.networks
          .all()
          .map(async (network) =>
            networkAttention(context.config, network, await readBalances(network), leases, day, month),
          ),
      );
      return {
        executors: networks.flatMap((each) => each.executors),
        paymasters: networks.map((each) => each.paymaster),
        stuck: await viewsOf(context, symbols, pending),
        denied,
        errors: errorsByReason(day),
      };
    },
  };
}

export type Dashboard = ReturnType<typeof createDashboard>;
