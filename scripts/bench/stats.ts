/** Figures of a sample: percentiles (nearest rank) and the median used to combine runs. */
export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

/** The median of the finite values (NaN when there are none): a run that could not measure a figure is left out. */
export const median = (values: number[]) => {
  const finite = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (finite.length === 0) return Number.NaN;
  const middle = finite.length >> 1;
  return finite.length % 2
    ? (finite[middle] as number)
    : ((finite[middle - 1] as number) + (finite[middle] as number)) / 2;
};

/** JSON-RPC calls by method, most frequent first, each divided by `per` (calls per verify or per settle). */
export const perMethod = (calls: Record<string, number>, per: number) =>
  Object.entries(calls)
    .sort(([, a], [, b]) => b - a)
    .map(([method, n]) => `${method} ${(n / per).toFixed(2)}`)
    .join(", ");
