// OpenAPI examples of the dashboard's answers, of shapes its schemas accept (test/http/openapi.test.ts checks each).
import { EXECUTOR, type Examples, hash, MERCHANT, PAYER, TOKEN } from "../examples";
import { EXAMPLE_DELIVERY } from "../webhooks/examples";

const TX = `0x${"5c".repeat(32)}`;

const settlement = {
  paymentId: `0x${"9a".repeat(32)}`,
  network: "bsc",
  flow: "eoa",
  status: "success",
  token: TOKEN,
  symbol: "USDT",
  amount: "3000000000000000007",
  fee: null,
  payer: PAYER,
  payee: MERCHANT,
  txHash: TX,
  block: 45123456,
  explorerUrl: `https://bscscan.com/tx/${TX}`,
  gasWei: "86520000000000",
  sponsoredWei: null,
  latencyMs: 412,
  createdAt: "2026-01-01T00:00:00.000Z",
  error: null,
};

/** A payment as the lookup answers it, with the delivery of its payment.settled. */
const found = {
  record: {
    paymentId: hash("7"),
    status: "settled",
    flow: "eoa",
    network: "bsc",
    payer: PAYER,
    payee: MERCHANT,
    payees: [MERCHANT],
    token: TOKEN,
    amount: "3000000000000000007",
    fee: null,
    transaction: TX,
    block: 45123456,
    gasUsed: "86520",
    effectiveGasPrice: "1000000000",
    createdAt: "2026-01-01T00:00:00.000Z",
    sentAt: "2026-01-01T00:00:00.120Z",
    minedAt: "2026-01-01T00:00:00.412Z",
    failureReason: null,
  },
  explorerUrl: `https://bscscan.com/tx/${TX}`,
  deliveries: [EXAMPLE_DELIVERY],
};

export const DASHBOARD_EXAMPLES: Record<string, Examples> = {
  "GET /dashboard/api/payments": { responses: { "200": { payments: [found] } } },
  "GET /dashboard/api/webhooks": {
    responses: {
      "200": {
        endpoints: [
          {
            id: "orders",
            url: "https://shop.example/webhooks/relay402",
            events: null,
            networks: null,
            payTo: [MERCHANT.toLowerCase()],
            disabled: null,
            deliveries: { pending: 2, failing: 1, delivered: 1207, dead: 0 },
          },
          {
            id: "ops",
            url: "https://ops.example/hooks",
            events: ["executor.low_balance", "paymaster.low_deposit"],
            networks: null,
            payTo: null,
            disabled: { disabledAt: "2026-01-01T00:00:00.000Z", reason: "answered 410 Gone" },
            deliveries: { pending: 0, failing: 0, delivered: 3, dead: 1 },
          },
        ],
      },
    },
  },
  "GET /dashboard/api/summary": {
    responses: {
      "200": {
        range: "day",
        from: "2025-12-31T00:00:00.000Z",
        to: "2026-01-01T00:00:00.000Z",
        flows: [
          {
            network: "bsc",
            flow: "eoa",
            settlements: { total: 12, success: 11, failed: 1, pending: 0 },
            successRate: 11 / 12,
            volume: [{ token: TOKEN.toLowerCase(), symbol: "USDT", amount: "33000000000000000077" }],
            fees: [],
            gas: { wei: "951720000000000", known: 11, unknown: 1 },
            sponsored: { wei: "0", known: 0, unknown: 0 },
            spentWei: "951720000000000",
            latencyMs: { p50: 402, p95: 890, p99: 890, samples: 11 },
          },
        ],
        totals: {
          settlements: 12,
          volume: [{ token: TOKEN.toLowerCase(), symbol: "USDT", amount: "33000000000000000077" }],
          fees: [],
          spentWeiByNetwork: { bsc: "951720000000000" },
          unknownGas: 1,
        },
        series: [
          { start: "2025-12-31T00:00:00.000Z", success: 11, failed: 1, pending: 0, spentWei: "951720000000000" },
        ],
        onboarding: [
          {
            network: "bsc",
            enabled: true,
            payersFunded: 3,
            fundings: 3,
            fundingWei: "1050000000000000",
            diverted: { count: 1, wei: "350000000000000" },
            lost: { count: 1, wei: "350000000000000" },
            fundingGas: { wei: "63000000000000", known: 3, unknown: 0 },
            approveGas: { wei: "92000000000000", known: 3, unknown: 0 },
            kept: { wei: "958000000000000", known: 3, unknown: 0 },
            payersKept: [
              { payer: PAYER, fundings: 1, keptWei: "350000000000000" },
              { payer: MERCHANT, fundings: 1, keptWei: "304000000000000" },
            ],
            budget: { wei: "10000000000000000", windowSeconds: 3600, spentWei: "371000000000000" },
          },
        ],
      },
    },
  },
  "GET /dashboard/api/settlements": {
    responses: { "200": { settlements: [settlement], next: null } },
  },
  "GET /dashboard/api/attention": {
    responses: {
      "200": {
        executors: [
          {
            network: "bsc",
            address: EXECUTOR,
            balanceWei: "480000000000000000",
            alertBelowWei: "10000000000000000",
            low: false,
            inFlight: 0,
            leaseHolder: null,
            lastsHours: 12104.5,
          },
        ],
        paymasters: [
          {
            network: "bsc",
            depositWei: "1000000000000000000",
            alertBelowWei: "100000000000000000",
            low: false,
            averageSponsoredWei: "98000000000000",
            coversUserOps: "10204",
          },
        ],
        stuck: [],
        denied: [
          {
            network: "bsc",
            kind: "payer",
            address: PAYER.toLowerCase(),
            reverts: 3,
            lastRevertAt: 1_767_225_600,
            lastReason: "reverted",
            denied: true,
          },
        ],
        errors: [{ reason: "reverted", count: 1, lastAt: "2025-12-31T18:00:00.000Z" }],
      },
    },
  },
};
