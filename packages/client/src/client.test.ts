import { describe, expect, test } from "bun:test";
import { createRelay402Client } from "./client.js";
import { Relay402ClientError } from "./errors.js";

const pending = { code: "blockchain_error", message: "not mined yet", doc_url: "#", details: { status: "pending" } };

/** A fetch that answers each call with the next of `answers` (a thrown error for "down") and counts calls. */
function scripted(answers: ({ status: number; body: unknown } | "down")[]) {
  let calls = 0;
  const fetch = (async () => {
    const answer = answers[Math.min(calls++, answers.length - 1)]!;
    if (answer === "down") throw new TypeError("connection refused");
    const text = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
    return new Response(text, { status: answer.status });
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
});
