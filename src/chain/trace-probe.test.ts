import { describe, expect, test } from "bun:test";
import { HttpRequestError, RpcRequestError, TimeoutError } from "viem";
import { refusesTracing } from "./trace-probe";

const url = "http://node.test";
const rpcError = (code: number, message: string) =>
  new RpcRequestError({ body: { method: "debug_traceTransaction" }, error: { code, message }, url });

describe("refusesTracing: the answer to tracing a transaction that does not exist", () => {
  test("a refused method, as nodes and providers word it, means no tracing", () => {
    expect(refusesTracing(rpcError(-32601, "the method debug_traceTransaction does not exist/is not available"))).toBe(
      true,
    );
    expect(refusesTracing(rpcError(-32004, "method not supported"))).toBe(true);
    expect(refusesTracing(rpcError(-32600, "Unsupported method: debug_traceTransaction"))).toBe(true);
    expect(refusesTracing(rpcError(-32000, "rpc method is not whitelisted"))).toBe(true);
    expect(refusesTracing(rpcError(-32000, "debug namespace is disabled"))).toBe(true);
  });

  test("no JSON-RPC answer at all (HTTP 403, a timeout) means no tracing", () => {
    expect(refusesTracing(new HttpRequestError({ url, status: 403, body: {} }))).toBe(true);
    expect(refusesTracing(new TimeoutError({ body: {}, url }))).toBe(true);
    expect(refusesTracing(new Error("socket hang up"))).toBe(true);
  });

  test("an unknown transaction is the answer of a node that traces", () => {
    expect(refusesTracing(rpcError(-32000, `transaction 0x${"00".repeat(32)} not found`))).toBe(false);
    expect(refusesTracing(rpcError(-32000, "genesis is not traceable"))).toBe(false);
  });
});
