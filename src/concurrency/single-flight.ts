/** Concurrent calls with the same key (in this process) share one promise; the key is free again once it settles. */
export function createSingleFlight() {
  const running = new Map<string, Promise<unknown>>();
  return function once<T>(key: string, task: () => Promise<T>): Promise<T> {
    const existing = running.get(key);
    if (existing) return existing as Promise<T>;
    const promise = task().finally(() => running.delete(key));
    running.set(key, promise);
    return promise;
  };
}
