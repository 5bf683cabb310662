import { afterAll, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { attemptDelivery, deliveryBody } from "./deliver";

const secret = `whsec_${Buffer.from("relay402-deliver-test-secret-32b").toString("base64")}`;
const body = deliveryBody({ type: "webhook.test", payload: '{"a":1}', createdAt: "2026-01-01T00:00:00.000Z" });
const seen: { headers: Record<string, string>; body: string }[] = [];
let answer: () => Response | Promise<Response> = () => new Response(null, { status: 204 });
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    seen.push({ headers: Object.fromEntries(request.headers), body: await request.text() });
    return answer();
  },
});
afterAll(() => server.stop(true));
const url = `http://127.0.0.1:${server.port}/hooks?token=url-token-d41`;

describe("attemptDelivery", () => {
  test("a 2xx is a delivery; the request is signed as Standard Webhooks say", async () => {
    answer = () => new Response(null, { status: 204 });
    expect(await attemptDelivery(url, secret, "msg_1", body, 1_000, "relay402/test")).toEqual({
      status: 204,
      error: null,
    });
    const request = seen.at(-1);
    expect(request?.headers).toMatchObject({ "content-type": "application/json", "user-agent": "relay402/test" });
    expect(new Webhook(secret).verify(request?.body ?? "", request?.headers ?? {})).toEqual(JSON.parse(body));
  });

  test("any other status is a failure naming only the status, never the receiver's body", async () => {
    answer = () => new Response("receiver-body-d41", { status: 503 });
    expect(await attemptDelivery(url, secret, "msg_1", body, 1_000, "relay402/test")).toEqual({
      status: 503,
      error: "answered 503",
    });
  });

  test("no answer within the timeout", async () => {
    answer = async () => {
      await Bun.sleep(600);
      return new Response(null, { status: 200 });
    };
    const started = performance.now();
    expect(await attemptDelivery(url, secret, "msg_1", body, 200, "relay402/test")).toEqual({
      status: null,
      error: "no answer within 200 ms",
    });
    expect(performance.now() - started).toBeLessThan(550);
  });

  test("a refused connection is a failure that does not quote the URL (it may carry a token)", async () => {
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(null) });
    const port = closed.port;
    closed.stop(true);
    const result = await attemptDelivery(
      `http://user:url-password-d41@127.0.0.1:${port}/hooks?token=url-token-d41`,
      secret,
      "msg_1",
      body,
      1_000,
      "relay402/test",
    );
    expect(result).toEqual({ status: null, error: "connection failed" });
  });
});
