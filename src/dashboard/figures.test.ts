import { expect, test } from "bun:test";
import { flowFigures, gasCostOf, percentile, series } from "./figures";
import type { SettlementRow } from "./records";

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

test("latency percentiles are nearest-rank over the rows that recorded both times", () => {
  expect(percentile([10, 20, 30, 40], 50)).toBe(20);
  expect(percentile([10, 20, 30, 40], 95)).toBe(40);
  const rows = [100, 200, 300].map((ms) =>
    row({ minedAt: new Date(Date.parse("2026-01-01T00:00:00.000Z") + ms).toISOString() }),
  );
  const [figures] = flowFigures([...rows, row({ sentAt: null })]);
  expect(figures?.latencyMs).toEqual({ p50: 200, p95: 300, p99: 300, samples: 3 });
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
