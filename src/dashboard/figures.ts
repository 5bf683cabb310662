import { addLatency, type LatencyHistogram, latencyPercentiles, mergeLatencies } from "./latency";
import type { DashboardFlow, SettlementRow } from "./records";

// The dashboard's figures from settlement rows: counts, exact sums (bigint: amounts of up to 256 bits, never a
// float), latency percentiles and a time series, by way of groups (the rows of a bucket summed, which rollups.ts
// stores per hour). Pure, so the unit tests beside it check every rule.

/** The time ranges the API serves, their length and the width of a chart's bucket. */
export const RANGES = {
  hour: { ms: 3_600_000, bucketMs: 300_000 },
  day: { ms: 86_400_000, bucketMs: 3_600_000 },
  month: { ms: 30 * 86_400_000, bucketMs: 86_400_000 },
} as const;
export type RangeName = keyof typeof RANGES;

/** A sum of figures some rows do not know: `unknown` rows (from before receipt figures were recorded) are not zero. */
export type KnownSum = { wei: string; known: number; unknown: number };

export type TokenAmount = { token: string; amount: string };

export type FlowFigures = {
  network: string;
  flow: DashboardFlow;
  settlements: { total: number; success: number; failed: number; pending: number };
  /** success / (success + failed); null when none concluded. */
  successRate: number | null;
  /** What succeeded settlements moved, per token (smallest units). */
  volume: TokenAmount[];
  /** The facilitator's fees of succeeded settlements, per token. */
  fees: TokenAmount[];
  /** The executors' transactions, from their receipts (gas used × effective gas price), in wei. */
  gas: KnownSum;
  /** What the paymaster's EntryPoint deposit paid for sponsored UserOps (actualGasCost), in wei. */
  sponsored: KnownSum;
  /** gas + sponsored over the rows that know them: the flow's cost in the native token. */
  spentWei: string;
  /** From sent to seen mined, succeeded settlements that recorded both. */
  latencyMs: { p50: number; p95: number; p99: number; samples: number } | null;
};

export type SeriesPoint = { start: string; success: number; failed: number; pending: number; spentWei: string };

/** A row's executor gas cost in wei, or null when its receipt figures were not recorded. */
export function gasCostOf(row: Pick<SettlementRow, "gasUsed" | "effectiveGasPrice">): bigint | null {
  if (row.gasUsed === null || row.effectiveGasPrice === null) return null;
  return BigInt(row.gasUsed) * BigInt(row.effectiveGasPrice);
}

/** The nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1] as number;
}

/** Whole decimal digits, or null: a value a record does not hold as an integer is not summed. */
const integer = (value: string | null) => (value !== null && /^[0-9]{1,78}$/.test(value) ? BigInt(value) : null);

/**
 * The rows of one bucket (an hour in the stored rollups, rollups.ts), network, flow, source table and token, summed:
 * every figure the summary shows is a sum of groups, so an hour summed once serves every range that holds it.
 */
export type Group = {
  /** ISO start of the bucket. */
  bucket: string;
  network: string;
  flow: DashboardFlow;
  source: SettlementRow["source"];
  /** Lowercase address; '' for records without one. */
  token: string;
  success: number;
  failed: number;
  pending: number;
  /** Amounts and fees of succeeded rows. */
  volume: bigint;
  fees: bigint;
  /** Concluded rows' executor gas (from receipts) and sponsored cost, with the rows that did not record them. */
  gasWei: bigint;
  gasKnown: number;
  gasUnknown: number;
  sponsoredWei: bigint;
  sponsoredKnown: number;
  sponsoredUnknown: number;
  latency: LatencyHistogram;
};

export const emptyGroup = (key: Pick<Group, "bucket" | "network" | "flow" | "source" | "token">): Group => ({
  ...key,
  success: 0,
  failed: 0,
  pending: 0,
  volume: 0n,
  fees: 0n,
  gasWei: 0n,
  gasKnown: 0,
  gasUnknown: 0,
  sponsoredWei: 0n,
  sponsoredKnown: 0,
  sponsoredUnknown: 0,
  latency: new Map(),
});

/** The rows summed per bucket of `bucketMs`, network, flow, source and token. */
export function groupsOf(rows: readonly SettlementRow[], bucketMs: number): Group[] {
  const groups = new Map<string, Group>();
  for (const row of rows) {
    const bucket = new Date(Math.floor(Date.parse(row.createdAt) / bucketMs) * bucketMs).toISOString();
    const token = row.token?.toLowerCase() ?? "";
    const key = `${bucket} ${row.network} ${row.flow} ${row.source} ${token}`;
    let group = groups.get(key);
    if (!group) {
      group = emptyGroup({ bucket, network: row.network, flow: row.flow, source: row.source, token });
      groups.set(key, group);
    }
    group[row.status] += 1;
    if (row.status === "success") {
      if (token !== "") {
        group.volume += integer(row.amount) ?? 0n;
        group.fees += integer(row.fee) ?? 0n;
      }
      const latency = latencyOf(row);
      if (latency !== null) addLatency(group.latency, latency);
    }
    // A pending row has not paid yet; a UserOp's bundle transaction is the bundler's, not ours.
    if (row.status === "pending") continue;
    if (row.source !== "issued_user_ops") {
      const gas = gasCostOf(row);
      if (gas === null) group.gasUnknown += 1;
      else {
        group.gasKnown += 1;
        group.gasWei += gas;
      }
    } else {
      const sponsored = integer(row.sponsored);
      if (sponsored === null) group.sponsoredUnknown += 1;
      else {
        group.sponsoredKnown += 1;
        group.sponsoredWei += sponsored;
      }
    }
  }
  return [...groups.values()];
}

const listed = (map: Map<string, bigint>): TokenAmount[] =>
  [...map]
    .filter(([, amount]) => amount !== 0n)
    .map(([token, amount]) => ({ token, amount: amount.toString() }))
    .sort((a, b) => (a.token < b.token ? -1 : 1));

type Accumulator = {
  network: string;
  flow: DashboardFlow;
  settlements: FlowFigures["settlements"];
  volume: Map<string, bigint>;
  fees: Map<string, bigint>;
  gas: Omit<KnownSum, "wei"> & { wei: bigint };
  sponsored: Omit<KnownSum, "wei"> & { wei: bigint };
  latency: LatencyHistogram;
};

/** Figures per network and flow from groups (of any buckets), sorted by network then flow. */
export function flowFigures(groups: readonly Group[]): FlowFigures[] {
  const flows = new Map<string, Accumulator>();
  for (const group of groups) {
    const key = `${group.network} ${group.flow}`;
    let flow = flows.get(key);
    if (!flow) {
      flow = {
        network: group.network,
        flow: group.flow,
        settlements: { total: 0, success: 0, failed: 0, pending: 0 },
        volume: new Map(),
        fees: new Map(),
        gas: { wei: 0n, known: 0, unknown: 0 },
        sponsored: { wei: 0n, known: 0, unknown: 0 },
        latency: new Map(),
      };
      flows.set(key, flow);
    }
    flow.settlements.success += group.success;
    flow.settlements.failed += group.failed;
    flow.settlements.pending += group.pending;
    flow.settlements.total += group.success + group.failed + group.pending;
    if (group.token !== "") {
      flow.volume.set(group.token, (flow.volume.get(group.token) ?? 0n) + group.volume);
      flow.fees.set(group.token, (flow.fees.get(group.token) ?? 0n) + group.fees);
    }
    flow.gas.wei += group.gasWei;
    flow.gas.known += group.gasKnown;
    flow.gas.unknown += group.gasUnknown;
    flow.sponsored.wei += group.sponsoredWei;
    flow.sponsored.known += group.sponsoredKnown;
    flow.sponsored.unknown += group.sponsoredUnknown;
    mergeLatencies(flow.latency, group.latency);
  }
  return [...flows.values()]
    .map(({ network, flow, settlements, volume, fees, gas, sponsored, latency }): FlowFigures => {
      const concluded = settlements.success + settlements.failed;
      return {
        network,
        flow,
        settlements,
        successRate: concluded === 0 ? null : settlements.success / concluded,
        volume: listed(volume),
        fees: listed(fees),
        gas: { ...gas, wei: gas.wei.toString() },
        sponsored: { ...sponsored, wei: sponsored.wei.toString() },
        spentWei: (gas.wei + sponsored.wei).toString(),
        latencyMs: latencyPercentiles(latency),
      };
    })
    .sort((a, b) => (a.network === b.network ? (a.flow < b.flow ? -1 : 1) : a.network < b.network ? -1 : 1));
}

/** Milliseconds from sent to seen mined, or null when either time is unknown. */
export function latencyOf(row: Pick<SettlementRow, "sentAt" | "minedAt">): number | null {
  if (row.sentAt === null || row.minedAt === null) return null;
  const ms = Date.parse(row.minedAt) - Date.parse(row.sentAt);
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
}

/**
 * Counts and spend per bucket of `bucketMs` from `from` to `to` (every bucket present, empty ones zero), from groups
 * whose buckets divide `bucketMs`.
 */
export function series(groups: readonly Group[], from: number, to: number, bucketMs: number): SeriesPoint[] {
  const start = Math.floor(from / bucketMs) * bucketMs;
  const count = Math.max(1, Math.ceil((to - start) / bucketMs));
  const buckets = Array.from({ length: count }, (_, i) => ({
    start: new Date(start + i * bucketMs).toISOString(),
    success: 0,
    failed: 0,
    pending: 0,
    spent: 0n,
  }));
  for (const group of groups) {
    const bucket = buckets[Math.floor((Date.parse(group.bucket) - start) / bucketMs)];
    if (!bucket) continue;
    bucket.success += group.success;
    bucket.failed += group.failed;
    bucket.pending += group.pending;
    bucket.spent += group.gasWei + group.sponsoredWei;
  }
  return buckets.map(({ spent, ...bucket }) => ({ ...bucket, spentWei: spent.toString() }));
}

/** Sums of token amounts by token, exact. */
export function sumByToken(entries: readonly TokenAmount[]): TokenAmount[] {
  const map = new Map<string, bigint>();
  for (const entry of entries) {
    const token = entry.token.toLowerCase();
    map.set(token, (map.get(token) ?? 0n) + BigInt(entry.amount));
  }
  return listed(map);
}
