import { afterAll, describe, expect, test } from "bun:test";
import { startTestService } from "../support/service";

describe("rate limit by client network", () => {
  const limited = startTestService({ rateLimitPerMinute: 2, trustProxy: true });
  afterAll(() => limited.stop());
  const from = (ip: string) => limited.get("/config", { "x-forwarded-for": ip });

  test("IPv6 addresses of one /64 share a budget; another /64 has its own", async () => {
    expect((await from("2001:db8:aa:1::1")).status).toBe(200);
    expect((await from("2001:db8:aa:1:ffff:ffff:ffff:fffe")).status).toBe(200);
    // A third address of the same /64 is the third request of that client.
    const blocked = await from("2001:db8:aa:1:1234::99");
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe("rate_limit_exceeded");
    expect((await from("2001:db8:aa:2::1")).status).toBe(200);
  });

  test("IPv4 clients keep one budget per address, also when written as IPv4-mapped IPv6", async () => {
    expect((await from("192.0.2.7")).status).toBe(200);
    expect((await from("::ffff:192.0.2.7")).status).toBe(200);
    expect((await from("192.0.2.7")).status).toBe(429);
    expect((await from("192.0.2.8")).status).toBe(200);
  });
});
