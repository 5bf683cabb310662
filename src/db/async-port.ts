/**
 * A store port whose every method answers a promise: what a store on a database server is. The flows take stores
 * as `Async<Port>`: the PostgreSQL adapters implement it, and a synchronous bun:sqlite store becomes one through
 * `asAsync` (its statements still run at once, when called; only the answer arrives as a promise). A flow written
 * against this port awaits every store call, so it cannot rely on two calls running without another request in
 * between: whatever must not race (a claim) is one atomic statement in every adapter.
 */
export type Async<Port> = {
  [Method in keyof Port]: Port[Method] extends (...args: infer Args) => infer Result
    ? (...args: Args) => Promise<Awaited<Result>>
    : Port[Method];
};

/**
 * The synchronous store as the async port. Each method runs its statement in the call, as before, and answers
 * with a settled promise; a throw becomes a rejection, as a database server's error would be.
 */
export function asAsync<Port extends object>(port: Port): Async<Port> {
  const wrapped: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(port)) {
    wrapped[name] =
      typeof value === "function"
        ? (...args: unknown[]) => {
            try {
              return Promise.resolve(value.apply(port, args));
            } catch (error) {
              return Promise.reject(error);
            }
          }
        : value;
  }
  return wrapped as Async<Port>;
}
