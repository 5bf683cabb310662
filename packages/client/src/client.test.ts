import { describe, expect, test } from "bun:test";
import { createRelay402Client } from "./client.js";
import { Relay402ClientError } from "./errors.js";

const pending = { code: "blockchain_error", message: "not mined yet", doc_url: "#", details: { status: "pending" } };

/** A fetch that answers each call with the next of `answers` (a thrown error for "down") and counts calls. */
function scripted(answers: ({ status: number; body: unknown; headers?: Record<string, string> } | "down")[]) {
  let calls = 0;
  const fetch = (async () => {
    const answer = answers[Math.min(calls++, answers.length - 1)]!;
    if (answer === "down") throw new TypeError("connection refused");
    const text = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
    return new Response(text, { status: answer.status, headers: answer.headers ?? {} });
  }) as unknown as typeof globalThis.fetch;
  return { fetch, calls: () => calls };
}

describe("createRelay402Client", () => {
  test("an idempotent request is retried on network errors and while pending, then answers the result", async () => {
    const server = scripted([
      "down",
      { status: 502, body: "<html>bad gateway</html>" },
      { status: 500, body: pending },
      { status: 200, body: { success: true } },
    ]);
    const client = createRelay402Client({ url: "http://relay", fetch: server.fetch, retryDelayMs: 0 });
    expect(await client.post("/settle", {}, { idempotent: true })).toEqual({ success: true });
    expect(server.calls()).toBe(4);
  });

  test("a verify is sent once, and other errors of a settle are not retried", async () => {
    const down = scripted(["down", { status: 200, body: {} }]);
    const client = createRelay402Client({ url: "http://relay", fetch: down.fetch, retryDelayMs: 0 });
    await expect(client.post("/verify", {})).rejects.toMatchObject({ code: "network_error" });
    expect(down.calls()).toBe(1);

    const refused = { code: "nonce_error", message: "nonce used", doc_url: "#", details: { field: "nonce" } };
    const nonce = scripted([{ status: 400, body: refused }]);
    const settle = createRelay402Client({ url: "http://relay", fetch: nonce.fetch, retryDelayMs: 0 });
    const error = await settle.post("/settle", {}, { idempotent: true }).catch((e) => e);
    expect(error).toBeInstanceOf(Relay402ClientError);
    expect(error).toMatchObject({
      code: "nonce_error",
      message: "nonce used",
      details: { field: "nonce" },
      status: 400,
    });
    expect(nonce.calls()).toBe(1);
  });

  test("gives up after settleAttempts, with the pending error and its details", async () => {
    const server = scripted([{ status: 500, body: pending }]);
    const client = createRelay402Client({
      url: "http://relay",
      fetch: server.fetch,
      retryDelayMs: 0,
      settleAttempts: 3,
    });
    const error = (await client.post("/settle", {}, { idempotent: true }).catch((e) => e)) as Relay402ClientError;
    expect(error.isPending).toBe(true);
    expect(server.calls()).toBe(3);
  });

  const inFlight = {
    success: false,
    status: "pending",
    paymentId: `0x${"ab".repeat(32)}`,
    network: "bsc",
    payer: "0x00000000000000000000000000000000000000a1",
    transaction: `0x${"cd".repeat(32)}`,
    message: "sent but not yet mined",
  };

  test("a 202 pending answer is not a result: the settle is sent again after its Retry-After", async () => {
    const server = scripted([
      { status: 202, body: inFlight, headers: { "retry-after": "1", location: `/payments/${inFlight.paymentId}` } },
      { status: 200, body: { success: true, paymentId: inFlight.paymentId } },
    ]);
    const client = createRelay402Client({ url: "http://relay", fetch: server.fetch, retryDelayMs: 0 });
    const started = performance.now();
    expect(await client.post("/settle", {}, { idempotent: true })).toEqual({
      success: true,
      paymentId: inFlight.paymentId,
    });
    expect(server.calls()).toBe(2);
    // retryDelayMs is 0: only the answer's Retry-After (1 s) made the client wait.
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
  });

  test("a 202 pending answer that outlasts settleAttempts is the pending error, naming the payment", async () => {
    const server = scripted([{ status: 202, body: inFlight, headers: { "retry-after": "0" } }]);
    const client = createRelay402Client({ url: "http://relay", fetch: server.fetch, settleAttempts: 2 });
    const error = (await client.post("/settle", {}, { idempotent: true }).catch((e) => e)) as Relay402ClientError;
    expect(error).toBeInstanceOf(Relay402ClientError);
    expect(error.isPending).toBe(true);
    expect(error.status).toBe(202);
    expect(error.details).toMatchObject({
      paymentId: inFlight.paymentId,
      network: "bsc",
      payer: inFlight.payer,
      transaction: inFlight.transaction,
      retryAfterSeconds: 0,
    });
    expect(server.calls()).toBe(2);
  });

  test("a verify answered 202 pending is raised, not returned as its result", async () => {
    const server = scripted([{ status: 202, body: inFlight }]);
    const client = createRelay402Client({ url: "http://relay", fetch: server.fetch });
    const error = (await client.post("/wallet/claim", {}).catch((e) => e)) as Relay402ClientError;
    expect(error.isPending).toBe(true);
    expect(server.calls()).toBe(1);
  });
});
