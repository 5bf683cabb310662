import type { FlowFigures, SeriesPoint } from "./figures";
import { POSTGRES_DIALECT, type RowFilter, rowsQuery } from "./records";

// A range's figures summed by PostgreSQL itself (NUMERIC: exact at 256 bits), so that a month of a million rows is
// not carried to the service to be added up: the same figures as figures.ts computes from the rows (the devnet
// tests compare both databases with the chain), in three grouped reads over the created_at index.

type Run = (text: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

const INTEGER = "'^[0-9]{1,78}$'";
/** A text column as NUMERIC when it holds an integer (as figures.ts's `integer`), else NULL. */
const numeric = (column: string) => `CASE WHEN ${column} ~ ${INTEGER} THEN ${column}::numeric END`;
const USER_OP = "source = 'issued_user_ops'";
const CONCLUDED = "status <> 'pending'";
const LATENCY_MS = "round(extract(epoch from (mined_at::timestamptz - sent_at::timestamptz)) * 1000)";

export async function postgresFigures(
  run: Run,
  filter: RowFilter,
  window: { from: number; to: number; bucketMs: number },
): Promise<{ flows: FlowFigures[]; series: SeriesPoint[]; settlements: number }> {
  const rows = rowsQuery(POSTGRES_DIALECT, filter);
  const from = `(${rows.text}) AS rows`;
  const gas = `CASE WHEN ${CONCLUDED} AND NOT ${USER_OP} THEN gas_used::numeric * effective_gas_price::numeric END`;
  const sponsored = `CASE WHEN ${CONCLUDED} AND ${USER_OP} THEN ${numeric("sponsored")} END`;
  const [groups, latencies, buckets] = await Promise.all([
    run(
      `SELECT network, flow, lower(token) AS token, status, count(*) AS n,
        sum(CASE WHEN status = 'success' THEN ${numeric("amount")} END)::text AS volume,
        sum(CASE WHEN status = 'success' THEN ${numeric("fee")} END)::text AS fees,
        coalesce(sum(${gas}), 0)::text AS gas,
        count(${gas}) AS gas_known,
        count(CASE WHEN ${CONCLUDED} AND NOT ${USER_OP} THEN 1 END) AS gas_rows,
        coalesce(sum(${sponsored}), 0)::text AS sponsored,
        count(${sponsored}) AS sponsored_known,
        count(CASE WHEN ${CONCLUDED} AND ${USER_OP} THEN 1 END) AS sponsored_rows
      FROM ${from} GROUP BY network, flow, lower(token), status`,
      rows.params,
    ),
    run(
      `SELECT network, flow, count(*) AS samples,
        percentile_disc(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY ${LATENCY_MS}) AS p
      FROM ${from} WHERE status = 'success' AND sent_at IS NOT NULL AND mined_at IS NOT NULL
        AND mined_at::timestamptz >= sent_at::timestamptz
      GROUP BY network, flow`,
      rows.params,
    ),
    run(
      `SELECT floor((extract(epoch from created_at::timestamptz) * 1000 - ?) / ?) AS bucket, status, count(*) AS n,
        coalesce(sum(coalesce(${gas}, ${sponsored})), 0)::text AS spent
      FROM ${from} GROUP BY 1, status`,
      [Math.floor(window.from / window.bucketMs) * window.bucketMs, window.bucketMs, ...rows.params],
    ),
  ]);

  const flows = new Map<string, FlowFigures>();
  const volume = new Map<string, Map<string, bigint>>();
  const fees = new Map<string, Map<string, bigint>>();
  const sums = new Map<string, { gas: bigint; sponsored: bigint }>();
  let settlements = 0;
  for (const group of groups) {
    const key = `${group.network} ${group.flow}`;
    let figures = flows.get(key);
    if (!figures) {
      figures = {
        network: String(group.network),
        flow: group.flow as FlowFigures["flow"],
        settlements: { total: 0, success: 0, failed: 0, pending: 0 },
        successRate: null,
        volume: [],
        fees: [],
        gas: { wei: "0", known: 0, unknown: 0 },
        sponsored: { wei: "0", known: 0, unknown: 0 },
        spentWei: "0",
        latencyMs: null,
      };
      flows.set(key, figures);
      volume.set(key, new Map());
      fees.set(key, new Map());
      sums.set(key, { gas: 0n, sponsored: 0n });
    }
    const n = Number(group.n);
    settlements += n;
    figures.settlements.total += n;
    figures.settlements[group.status as "success" | "failed" | "pending"] += n;
    const token = group.token === null ? null : String(group.token);
    const add = (map: Map<string, bigint> | undefined, amount: unknown) => {
      if (token === null || amount === null || amount === undefined) return;
      map?.set(token, (map.get(token) ?? 0n) + BigInt(String(amount)));
    };
    add(volume.get(key), group.volume);
    add(fees.get(key), group.fees);
    const sum = sums.get(key) as { gas: bigint; sponsored: bigint };
    sum.gas += BigInt(String(group.gas));
    sum.sponsored += BigInt(String(group.sponsored));
    figures.gas.known += Number(group.gas_known);
    figures.gas.unknown += Number(group.gas_rows) - Number(group.gas_known);
    figures.sponsored.known += Number(group.sponsored_known);
    figures.sponsored.unknown += Number(group.sponsored_rows) - Number(group.sponsored_known);
  }
  const listed = (map: Map<string, bigint> | undefined) =>
    [...(map ?? [])]
      .map(([token, amount]) => ({ token, amount: amount.toString() }))
      .sort((a, b) => (a.token < b.token ? -1 : 1));
  const result = [...flows.entries()].map(([key, figures]) => {
    const sum = sums.get(key) as { gas: bigint; sponsored: bigint };
    const concluded = figures.settlements.success + figures.settlements.failed;
    const latency = latencies.find((each) => `${each.network} ${each.flow}` === key);
    // A numeric[] arrives as an array or as its text, `{402,890,890}`.
    const raw = latency?.p;
    const p = (
      Array.isArray(raw)
        ? raw
        : String(raw ?? "")
            .replace(/[{}]/g, "")
            .split(",")
    ).map(Number);
    return {
      ...figures,
      successRate: concluded === 0 ? null : figures.settlements.success / concluded,
      volume: listed(volume.get(key)),
      fees: listed(fees.get(key)),
      gas: { ...figures.gas, wei: sum.gas.toString() },
      sponsored: { ...figures.sponsored, wei: sum.sponsored.toString() },
      spentWei: (sum.gas + sum.sponsored).toString(),
      latencyMs: latency
        ? { p50: p[0] as number, p95: p[1] as number, p99: p[2] as number, samples: Number(latency.samples) }
        : null,
    };
  });
  result.sort((a, b) => (a.network === b.network ? (a.flow < b.flow ? -1 : 1) : a.network < b.network ? -1 : 1));

  const start = Math.floor(window.from / window.bucketMs) * window.bucketMs;
  const count = Math.max(1, Math.ceil((window.to - start) / window.bucketMs));
  const series = Array.from({ length: count }, (_, i) => ({
    start: new Date(start + i * window.bucketMs).toISOString(),
    success: 0,
    failed: 0,
    pending: 0,
    spent: 0n,
  }));
  for (const bucket of buckets) {
    const point = series[Number(bucket.bucket)];
    if (!point) continue;
    point[bucket.status as "success" | "failed" | "pending"] += Number(bucket.n);
    point.spent += BigInt(String(bucket.spent));
  }
  return {
    flows: result,
    series: series.map(({ spent, ...point }) => ({ ...point, spentWei: spent.toString() })),
    settlements,
  };
}
