/** A JSON-RPC proxy that counts calls by method (batches counted per call), to measure RPC use per request. */
export function startRpcCounter(target: string) {
  const counts = new Map<string, number>();
  let roundTrips = 0;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const body = await request.text();
      roundTrips += 1;
      try {
        const parsed = JSON.parse(body);
        for (const call of Array.isArray(parsed) ? parsed : [parsed])
          counts.set(call.method, (counts.get(call.method) ?? 0) + 1);
      } catch {}
      const response = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body });
      return new Response(await response.text(), {
        status: response.status,
        headers: { "content-type": "application/json" },
      });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    snapshot: () => ({ roundTrips, calls: Object.fromEntries(counts) }),
    reset() {
      counts.clear();
      roundTrips = 0;
    },
    stop: () => server.stop(true),
  };
}
