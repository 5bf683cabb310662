import { describe, expect, test } from "bun:test";
import type { Config } from "../config/schema";
import { staleBroadcasts } from "./stale-broadcasts";

const config = {
  networks: { bsc: { receiptTimeoutMs: 1_000 }, base: { receiptTimeoutMs: 5_000 } },
} as unknown as Config;
const now = Date.parse("2026-01-01T00:01:00.000Z");
const record = (status: string, network: string, agoMs: number) => ({
  status,
  network,
  rawTx: null,
  updatedAt: new Date(now - agoMs).toISOString(),
});

describe("staleBroadcasts", () => {
  const stale = staleBroadcasts(config, undefined, () => now);

  test("takes a broadcast record untouched for twice its network's receipt wait", async () => {
    for (const status of ["sent", "funding_sent", "approve_sent"])
      expect(await stale(record(status, "bsc", 2_001))).toBe(true);
    expect(await stale(record("sent", "base", 10_001))).toBe(true);
  });

  test("leaves one still within its settle's wait, and one never broadcast or concluded", async () => {
    expect(await stale(record("sent", "bsc", 1_999))).toBe(false);
    expect(await stale(record("sent", "base", 9_000))).toBe(false);
    for (const status of ["pending", "success", "reverted", "approved"])
      expect(await stale(record(status, "bsc", 60_000))).toBe(false);
  });

  test("takes only what `owns` lets through", async () => {
    const mine = staleBroadcasts(
      config,
      async (r) => r.network === "bsc",
      () => now,
    );
    expect(await mine(record("sent", "bsc", 60_000))).toBe(true);
    expect(await mine(record("sent", "base", 60_000))).toBe(false);
  });
});
