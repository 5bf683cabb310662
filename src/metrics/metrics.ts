import { Registry } from "./registry";

/**
 * The process's event metrics, one registry per process as Prometheus scrapes one process as one target. Domain code
 * observes here (the executor's receipt lag) and the HTTP layer counts requests; nothing here imports http/.
 * Gauges read at scrape time (executor balances, in-flight transactions) belong to a service and are built per
 * service (src/metrics/service-gauges.ts).
 */
export const processMetrics = new Registry();

/** Requests by route pattern (never the raw path), method and status. */
export const httpRequests = processMetrics.counter(
  "relay402_http_requests_total",
  "HTTP requests answered, by route pattern (unmatched: no route), method and status",
);

/** Every settle that may send a transaction or a UserOp, from the request's arrival to its answer. */
export const settleDuration = processMetrics.histogram(
  "relay402_settle_duration_seconds",
  "Settle latency from request to answer, by flow (eoa, x402, wallet, swap, wallet_swap, incognito, deploy, deploy_wallet, claim) and HTTP status",
);

/** Executor transactions: the first broadcast to the receipt (replacements included). */
export const receiptLag = processMetrics.histogram(
  "relay402_receipt_lag_seconds",
  "Time from an executor transaction's broadcast to its receipt, by network",
);

/** Sponsored UserOps: handed to the bundler to the UserOp's outcome read from the chain. */
export const userOpReceiptLag = processMetrics.histogram(
  "relay402_userop_receipt_lag_seconds",
  "Time from handing a sponsored UserOp to the bundler to its execution on-chain, by network",
);

/** Called by the UserOp kernel when a UserOp it sent has its outcome. */
export function observeUserOpReceiptLag(network: string, milliseconds: number): void {
  userOpReceiptLag.observe({ network }, milliseconds / 1000);
}

/** Called by the executor with each receipt it got for a transaction it broadcast. */
export function observeReceiptLag(network: string, milliseconds: number): void {
  receiptLag.observe({ network }, milliseconds / 1000);
}
