import { expect, test } from "bun:test";
import { flowFigures as figuresOfGroups, gasCostOf, groupsOf, percentile, series as seriesOfGroups } from "./figures";
import { latencyFromJson, latencyPercentiles, latencyToJson, latencyUpperBound } from "./latency";
import type { SettlementRow } from "./records";

const HOUR = 3_600_000;
const flowFigures = (rows: SettlementRow[]) => figuresOfGroups(groupsOf(rows, HOUR));
const series = (rows: SettlementRow[], from: number, to: number, bucketMs: number) =>
  seriesOfGroups(groupsOf(rows, bucketMs), from, to, bucketMs);

const row = (overrides: Partial<SettlementRow>): SettlementRow => ({
  source: "eoa_settlements",
  id: "1",
  network: "bsc",
  flow: "eoa",
  token: "0xToken",
  amount: "1",
  fee: null,
  status: "success",
  payer: "0xpayer",
  payee: "0xpayee",
  txHash: "0x01",
  gasUsed: "50000",
  effectiveGasPrice: "1000000000",
  sponsored: null,
  sentAt: "2026-01-01T00:00:00.000Z",
  minedAt: "2026-01-01T00:00:00.400Z",
  createdAt: "2026-01-01T00:00:00.000Z",
  error: null,
  paymentId: null,
  block: 1,
  payees: ["0xpayee"],
  ...overrides,
});

test("volumes of 256-bit amounts sum exactly, per token whatever its case", () => {
  const max = (2n ** 256n - 1n).toString();
  const [figures] = flowFigures([row({ amount: max }), row({ amount: max, token: "0xTOKEN" }), row({ amount: "1" })]);
  expect(figures?.volume).toEqual([{ token: "0xtoken", amount: (2n * (2n ** 256n - 1n) + 1n).toString() }]);
});

test("gas a row did not record is counted as unknown, never as zero; pending rows pay nothing yet", () => {
  const [figures] = flowFigures([
    row({}),
    row({ gasUsed: null, effectiveGasPrice: null }),
    row({ status: "pending", gasUsed: null }),
    row({ status: "failed", gasUsed: "21000", effectiveGasPrice: "3" }),
  ]);
  expect(figures?.gas).toEqual({ wei: (50_000n * 10n ** 9n + 63_000n).toString(), known: 2, unknown: 1 });
  expect(figures?.settlements).toEqual({ total: 4, success: 2, failed: 1, pending: 1 });
  expect(figures?.successRate).toBe(2 / 3);
  expect(gasCostOf({ gasUsed: null, effectiveGasPrice: "1" })).toBeNull();
});

test("a UserOp's cost is what the paymaster sponsored, apart from the executors' gas", () => {
  const [figures] = flowFigures([
    row({ source: "issued_user_ops", flow: "smart-wallet", sponsored: "700", fee: "5" }),
    row({ source: "issued_user_ops", flow: "smart-wallet", sponsored: null, fee: "5" }),
  ]);
  expect(figures?.sponsored).toEqual({ wei: "700", known: 1, unknown: 1 });
  expect(figures?.gas).toEqual({ wei: "0", known: 0, unknown: 0 });
  expect(figures?.fees).toEqual([{ token: "0xtoken", amount: "10" }]);
  expect(figures?.spentWei).toBe("700");
});

test("latency percentiles are nearest-rank over the rows that recorded both times, within 4.5 % above", () => {
  expect(percentile([10, 20, 30, 40], 50)).toBe(20);
  expect(percentile([10, 20, 30, 40], 95)).toBe(40);
  const rows = [100, 200, 300].map((ms) =>
    row({ minedAt: new Date(Date.parse("2026-01-01T00:00:00.000Z") + ms).toISOString() }),
  );
  const [figures] = flowFigures([...rows, row({ sentAt: null })]);
  expect(figures?.latencyMs).toEqual({ p50: 206, p95: 304, p99: 304, samples: 3 });
  for (const ms of [0, 1, 2, 3, 7, 100, 412, 999, 1000, 12_345, 86_400_000]) {
    const [one] = flowFigures([row({ minedAt: new Date(Date.parse("2026-01-01T00:00:00.000Z") + ms).toISOString() })]);
    const p50 = one?.latencyMs?.p50 as number;
    expect(p50).toBeGreaterThanOrEqual(ms);
    expect(p50).toBeLessThanOrEqual(Math.max(1, Math.ceil(ms * 1.045)));
  }
  expect(latencyUpperBound(0)).toBe(1);
});

test("hours summed apart and merged give the figures of all their rows at once; a histogram survives its JSON", () => {
  const rows = Array.from({ length: 300 }, (_, i) =>
    row({
      createdAt: new Date(Date.parse("2026-01-01T00:00:00.000Z") + i * 997_000).toISOString(),
      minedAt: new Date(Date.parse("2026-01-01T00:00:00.000Z") + (i % 37) * 53).toISOString(),
      amount: (2n ** 255n + BigInt(i)).toString(),
      status: i % 7 === 0 ? "failed" : i % 11 === 0 ? "pending" : "success",
      network: i % 2 === 0 ? "bsc" : "base",
      token: i % 3 === 0 ? "0xA" : "0xB",
    }),
  );
  const hourly = groupsOf(rows, HOUR);
  expect(new Set(hourly.map((group) => group.bucket)).size).toBeGreaterThan(70);
  const stored = hourly.map((group) => ({ ...group, latency: latencyFromJson(latencyToJson(group.latency)) }));
  const whole = groupsOf(
    rows.map((each) => ({ ...each, createdAt: "2026-01-01T00:00:00.000Z" })),
    100 * HOUR,
  );
  expect(figuresOfGroups(stored)).toEqual(figuresOfGroups(whole));
  const day = 86_400_000;
  const from = Date.parse("2026-01-01T00:00:00.000Z");
  expect(seriesOfGroups(stored, from, from + 4 * day, day)).toEqual(
    seriesOfGroups(groupsOf(rows, day), from, from + 4 * day, day),
  );
  expect(latencyPercentiles(new Map())).toBeNull();
});

test("the series has every bucket of the range, empty ones zero", () => {
  const from = Date.parse("2026-01-01T00:00:00.000Z");
  const points = series([row({ createdAt: "2026-01-01T00:10:00.000Z" })], from, from + 3_600_000, 300_000);
  expect(points).toHaveLength(12);
  expect(points[2]).toEqual({
    start: "2026-01-01T00:10:00.000Z",
    success: 1,
    failed: 0,
    pending: 0,
    spentWei: "50000000000000",
  });
  expect(points.reduce((sum, point) => sum + point.success, 0)).toBe(1);
});
