/**
 * Runs `work` on every item with at most `limit` of them in flight at once; resolves when all are done. A rejection
 * of one item's work is the caller's to catch inside `work`: the others would run on without it.
 */
export async function forEachAtMost<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
}
