import type { DashboardFlow, SettlementRow } from "./records";

// The dashboard's figures from settlement rows: counts, exact sums (bigint: amounts of up to 256 bits, never a
// float), latency percentiles and a time series. Pure, so the unit tests beside it check every rule.

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

type Accumulator = {
  figures: FlowFigures;
  volume: Map<string, bigint>;
  fees: Map<string, bigint>;
  gas: bigint;
  sponsored: bigint;
  latencies: number[];
};

const add = (map: Map<string, bigint>, token: string | null, amount: bigint | null) => {
  if (token === null || amount === null) return;
  const key = token.toLowerCase();
  map.set(key, (map.get(key) ?? 0n) + amount);
};

const listed = (map: Map<string, bigint>): TokenAmount[] =>
  [...map]
    .map(([token, amount]) => ({ token, amount: amount.toString() }))
    .sort((a, b) => (a.token < b.token ? -1 : 1));

/** Figures per network and flow, sorted by network then flow. */
export function flowFigures(rows: readonly SettlementRow[]): FlowFigures[] {
  const groups = new Map<string, Accumulator>();
  for (const row of rows) {
    const key = `${row.network} ${row.flow}`;
    let group = groups.get(key);
    if (!group) {
      group = {
        figures: {
          network: row.network,
          flow: row.flow,
          settlements: { total: 0, success: 0, failed: 0, pending: 0 },
          successRate: null,
          volume: [],
          fees: [],
          gas: { wei: "0", known: 0, unknown: 0 },
          sponsored: { wei: "0", known: 0, unknown: 0 },
          spentWei: "0",
          latencyMs: null,
        },
        volume: new Map(),
        fees: new Map(),
        gas: 0n,
        sponsored: 0n,
        latencies: [],
      };
      groups.set(key, group);
    }
    const { figures } = group;
    figures.settlements.total += 1;
    figures.settlements[row.status] += 1;
    if (row.status === "success") {
      add(group.volume, row.token, integer(row.amount));
      add(group.fees, row.token, integer(row.fee));
      const latency = latencyOf(row);
      if (latency !== null) group.latencies.push(latency);
    }
    // A pending row has not paid yet; a UserOp's bundle transaction is the bundler's, not ours.
    if (row.status !== "pending") {
      if (row.source !== "issued_user_ops") {
        const gas = gasCostOf(row);
        if (gas === null) figures.gas.unknown += 1;
        else {
          figures.gas.known += 1;
          group.gas += gas;
        }
      } else {
        const sponsored = integer(row.sponsored);
        if (sponsored === null) figures.sponsored.unknown += 1;
        else {
          figures.sponsored.known += 1;
          group.sponsored += sponsored;
        }
      }
    }
  }
  return [...groups.values()]
    .map(({ figures, volume, fees, gas, sponsored, latencies }) => {
      const concluded = figures.settlements.success + figures.settlements.failed;
      latencies.sort((a, b) => a - b);
      return {
        ...figures,
        successRate: concluded === 0 ? null : figures.settlements.success / concluded,
        volume: listed(volume),
        fees: listed(fees),
        gas: { ...figures.gas, wei: gas.toString() },
        sponsored: { ...figures.sponsored, wei: sponsored.toString() },
        spentWei: (gas + sponsored).toString(),
        latencyMs:
          latencies.length === 0
            ? null
            : {
                p50: percentile(latencies, 50),
                p95: percentile(latencies, 95),
                p99: percentile(latencies, 99),
                samples: latencies.length,
              },
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

/** Counts and spend per bucket of `bucketMs` from `from` to `to` (every bucket present, empty ones zero). */
export function series(rows: readonly SettlementRow[], from: number, to: number, bucketMs: number): SeriesPoint[] {
  const start = Math.floor(from / bucketMs) * bucketMs;
  const count = Math.max(1, Math.ceil((to - start) / bucketMs));
  const buckets = Array.from({ length: count }, (_, i) => ({
    start: new Date(start + i * bucketMs).toISOString(),
    success: 0,
    failed: 0,
    pending: 0,
    spent: 0n,
  }));
  for (const row of rows) {
    const bucket = buckets[Math.floor((Date.parse(row.createdAt) - start) / bucketMs)];
    if (!bucket) continue;
    bucket[row.status] += 1;
    const spent = row.source === "issued_user_ops" ? integer(row.sponsored) : gasCostOf(row);
    if (row.status !== "pending" && spent !== null) bucket.spent += spent;
  }
  return buckets.map(({ spent, ...bucket }) => ({ ...bucket, spentWei: spent.toString() }));
}

/** Sums of token amounts by token, exact. */
export function sumByToken(entries: readonly TokenAmount[]): TokenAmount[] {
  const map = new Map<string, bigint>();
  for (const entry of entries) add(map, entry.token, BigInt(entry.amount));
  return listed(map);
}
