// Latencies as a histogram of narrow logarithmic buckets, so that an hour's rollup keeps them in a few bytes and a
// month's percentiles merge from 720 hours: a percentile is its bucket's upper bound, at most 1/16 of an octave (4.4 %)
// above the exact value.

/** Buckets per doubling. */
const PER_OCTAVE = 16;

/** bucket index → count. */
export type LatencyHistogram = Map<number, number>;

/** The bucket of a latency in ms: 0 holds up to 1 ms, bucket i up to 2^(i/16) ms. */
export function latencyBucket(ms: number): number {
  return ms <= 1 ? 0 : Math.ceil(Math.log2(ms) * PER_OCTAVE - 1e-9);
}

/** The largest latency (ms, whole) bucket i holds. */
export function latencyUpperBound(bucket: number): number {
  return Math.round(2 ** (bucket / PER_OCTAVE));
}

export function addLatency(histogram: LatencyHistogram, ms: number, count = 1): void {
  const bucket = latencyBucket(ms);
  histogram.set(bucket, (histogram.get(bucket) ?? 0) + count);
}

export function mergeLatencies(into: LatencyHistogram, from: LatencyHistogram): void {
  for (const [bucket, count] of from) into.set(bucket, (into.get(bucket) ?? 0) + count);
}

/** p50, p95, p99 (nearest rank, each its bucket's upper bound) and the sample count; null without samples. */
export function latencyPercentiles(histogram: LatencyHistogram) {
  const buckets = [...histogram].filter(([, count]) => count > 0).sort((a, b) => a[0] - b[0]);
  const samples = buckets.reduce((sum, [, count]) => sum + count, 0);
  if (samples === 0) return null;
  const at = (p: number) => {
    const rank = Math.max(1, Math.ceil((p / 100) * samples));
    let seen = 0;
    for (const [bucket, count] of buckets) {
      seen += count;
      if (seen >= rank) return latencyUpperBound(bucket);
    }
    return latencyUpperBound(buckets.at(-1)?.[0] ?? 0);
  };
  return { p50: at(50), p95: at(95), p99: at(99), samples };
}

/** As stored in a rollup row: a JSON object of bucket → count. */
export const latencyToJson = (histogram: LatencyHistogram): string => JSON.stringify(Object.fromEntries(histogram));

export function latencyFromJson(text: string): LatencyHistogram {
  const parsed = JSON.parse(text) as Record<string, number>;
  return new Map(Object.entries(parsed).map(([bucket, count]) => [Number(bucket), Number(count)]));
}
