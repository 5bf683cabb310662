import { describe, expect, test } from "bun:test";
import { createRateLimiter, rateLimitKey } from "./rate-limit";

describe("rateLimitKey", () => {
  test("IPv6 addresses are keyed by their /64, whatever their spelling", () => {
    const key = rateLimitKey("2001:db8:1:2::1");
    expect(key).toBe("2001:db8:1:2::/64");
    for (const same of [
      "2001:db8:1:2:ffff:ffff:ffff:ffff",
      "2001:0DB8:0001:0002:0:0:0:9",
      "[2001:db8:1:2::42]",
      "2001:db8:1:2::7%eth0",
      " 2001:db8:1:2:a:b:1.2.3.4 ",
    ]) {
      expect(rateLimitKey(same)).toBe(key);
    }
    expect(rateLimitKey("2001:db8:1:3::1")).not.toBe(key);
    expect(rateLimitKey("::1")).toBe("0:0:0:0::/64");
    expect(rateLimitKey("::")).toBe("0:0:0:0::/64");
  });

  test("IPv4 and IPv4-mapped IPv6 are keyed by the full address", () => {
    expect(rateLimitKey("10.0.0.1")).toBe("10.0.0.1");
    expect(rateLimitKey("10.0.0.2")).toBe("10.0.0.2");
    expect(rateLimitKey("::ffff:10.0.0.1")).toBe("10.0.0.1");
    expect(rateLimitKey("::ffff:a00:1")).toBe("10.0.0.1");
    expect(rateLimitKey("0:0:0:0:0:ffff:10.0.0.1")).toBe("10.0.0.1");
    expect(rateLimitKey("::ffff:10.0.0.2")).not.toBe(rateLimitKey("::ffff:10.0.0.1"));
  });

  test("what does not parse is its own key, cut to a bounded length", () => {
    expect(rateLimitKey("unknown")).toBe("unknown");
    expect(rateLimitKey("1:2:3:4:5:6:7:8:9")).toBe("1:2:3:4:5:6:7:8:9");
    expect(rateLimitKey("1::2::3")).toBe("1::2::3");
    expect(rateLimitKey("300.1.1.1")).toBe("300.1.1.1");
    expect(rateLimitKey("x".repeat(10_000)).length).toBe(64);
  });
});

describe("createRateLimiter", () => {
  test("a key gets its budget per minute, then the seconds to wait; a new minute starts a new budget", () => {
    let time = 1_000_000;
    const limiter = createRateLimiter(2, { now: () => time });
    expect(limiter.take("a")).toBe(0);
    expect(limiter.take("a")).toBe(0);
    time += 15_000;
    expect(limiter.take("a")).toBe(45);
    expect(limiter.take("b")).toBe(0);
    time += 45_000;
    expect(limiter.take("a")).toBe(0);
  });

  test("a flood of distinct keys never tracks more than maxKeys windows; the oldest go first", () => {
    let time = 0;
    const limiter = createRateLimiter(1, { now: () => time, maxKeys: 1000 });
    limiter.take("victim");
    time += 1;
    limiter.take("recent");
    for (let i = 0; i < 50_000; i++) {
      time += 0.001;
      limiter.take(`flood-${i}`);
      expect(limiter.size()).toBeLessThanOrEqual(1000);
    }
    expect(limiter.size()).toBe(1000);
    // The oldest window was evicted (its client starts again), the last flood keys are still limited.
    expect(limiter.take("victim")).toBe(0);
    expect(limiter.take("flood-49999")).toBeGreaterThan(0);
  });

  test("expired windows are dropped, so an idle limiter holds nothing", () => {
    let time = 0;
    const limiter = createRateLimiter(5, { now: () => time });
    for (let i = 0; i < 100; i++) limiter.take(`k${i}`);
    expect(limiter.size()).toBe(100);
    time += 60_000;
    limiter.take("later");
    expect(limiter.size()).toBe(1);
  });

  test("a renewed window moves to the back of the eviction order", () => {
    let time = 0;
    const limiter = createRateLimiter(1, { now: () => time, maxKeys: 2 });
    limiter.take("a");
    time += 10;
    limiter.take("b");
    time += 60_000 - 5;
    limiter.take("a"); // a's window expired at 60 000 and renews; b's is still live
    expect(limiter.size()).toBe(2);
    time += 1;
    limiter.take("c"); // evicts b (the oldest live window), not a
    expect(limiter.take("a")).toBeGreaterThan(0);
    expect(limiter.take("c")).toBeGreaterThan(0);
  });
});

describe("createRateLimiter costs", () => {
  test("a request that costs more is answered while budget remains, and spends that much of it", () => {
    let time = 0;
    const limiter = createRateLimiter(20, { now: () => time });
    expect(limiter.take("a", 10)).toBe(0);
    expect(limiter.take("a", 10)).toBe(0);
    expect(limiter.take("a", 10)).toBeGreaterThan(0);
    expect(limiter.take("a")).toBeGreaterThan(0);
    // Ordinary requests: exactly the limit.
    for (let i = 0; i < 20; i++) expect(limiter.take("b")).toBe(0);
    expect(limiter.take("b")).toBeGreaterThan(0);
    time += 60_000;
    expect(limiter.take("a")).toBe(0);
  });
});
