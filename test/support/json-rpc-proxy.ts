export type JsonRpcCall = { jsonrpc: "2.0"; id: number | string; method: string; params?: unknown[] };
export type JsonRpcAnswer = { result?: unknown; error?: { code: number; message: string; data?: unknown } };

export type JsonRpcProxyHooks = {
  /** Answers a call itself (a result, or an answer with `error`); undefined forwards it to the target. */
  answer?: (call: JsonRpcCall) => unknown | Promise<unknown>;
  /** Rewrites the target's answer to a forwarded call (a bundler or node that lies). */
  rewrite?: (call: JsonRpcCall, answer: JsonRpcAnswer) => JsonRpcAnswer | Promise<JsonRpcAnswer>;
};

/**
 * A JSON-RPC proxy in front of a real node or bundler, for tests: counts methods (batches included), can
 * play dead (`state.down`), and can answer or rewrite chosen calls through `hooks`.
 */
export function jsonRpcProxy(target: string, hooks: JsonRpcProxyHooks = {}) {
  const counts = new Map<string, number>();
  /** Every HTTP request's calls, in arrival order (one element for a single call, several for a batch). */
  const requests: JsonRpcCall[][] = [];
  const state = { down: false };

  async function handle(call: JsonRpcCall): Promise<unknown> {
    counts.set(call.method, (counts.get(call.method) ?? 0) + 1);
    const own = await hooks.answer?.(call);
    if (own !== undefined) {
      const answer = own as JsonRpcAnswer;
      return answer && typeof answer === "object" && "error" in answer
        ? { jsonrpc: "2.0", id: call.id, error: answer.error }
        : { jsonrpc: "2.0", id: call.id, result: own };
    }
    const response = await fetch(target, {
      method: "POST",
      body: JSON.stringify(call),
      headers: { "content-type": "application/json" },
    });
    const answer = (await response.json()) as JsonRpcAnswer;
    const rewritten = hooks.rewrite ? await hooks.rewrite(call, answer) : answer;
    return { ...rewritten, jsonrpc: "2.0", id: call.id };
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      if (state.down) return new Response("unavailable", { status: 503 });
      const parsed = (await request.json()) as JsonRpcCall | JsonRpcCall[];
      requests.push(Array.isArray(parsed) ? parsed : [parsed]);
      const body = Array.isArray(parsed) ? await Promise.all(parsed.map(handle)) : await handle(parsed);
      return Response.json(body);
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, counts, requests, state, stop: () => server.stop(true) };
}

/**
 * A node in front of `target` that serves every method but tracing (`debug_trace*` answer "method not found"), as
 * most public BSC and Base endpoints do.
 */
export const nodeWithoutTracing = (target: string) =>
  jsonRpcProxy(target, {
    answer: (call) =>
      call.method.startsWith("debug_trace")
        ? { error: { code: -32601, message: `the method ${call.method} does not exist/is not available` } }
        : undefined,
  });
