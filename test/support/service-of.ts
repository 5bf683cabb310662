// The service of a config, driven through `app.handle`, with no devnet of its own: test/support/service.ts builds
// it on the run's devnet; a test of another chain (test/networks) builds it on that chain alone.
import type { Config } from "../../src/config/schema";
import { openDatabase } from "../../src/db/open";
import { createSqliteStores } from "../../src/db/stores";
import type { AnyFlow } from "../../src/flow";
import { createApp } from "../../src/http/app";
import { createLogger } from "../../src/logger";
import { createServices, denyPolicyOf } from "../../src/services";
import type { PaymentPayloadBody } from "../../src/settlement/authorization";
import { createSettlementStore } from "../../src/settlement/settlement-store";
import { createSwapSettlementStore } from "../../src/swap/swap-store";

export type PaymentBody = { paymentPayload: PaymentPayloadBody };

/**
 * Requests to `app` through its handler (no socket): a JSON body for an object, the answer's JSON as `body` (its text
 * when it is not JSON).
 */
export function requestsTo(app: { handle(request: Request): Response | Promise<Response> }) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      }),
    );
    const text = await response.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: response.status, body: json, headers: response.headers };
  };
}

/** The service of `config` with its real SQLite file (config.databasePath). Call `stop()` in afterAll. */
export function serviceOf(config: Config, logSink?: (line: string) => void, flows?: readonly AnyFlow[]) {
  // Without a sink of the test's own, only a 500's cause is written (to stderr), so a loaded run shows why.
  const logger = createLogger({
    sink:
      logSink ??
      ((line) => {
        if (line.includes('"event":"unhandled_error"')) process.stderr.write(`test service: ${line}`);
      }),
  });
  // The tests read and write the records beside the service: the same SQLite file, synchronous stores on it.
  const db = openDatabase(config.databasePath);
  const services = createServices(config, logger, undefined, createSqliteStores(db, denyPolicyOf(config)), flows);
  const app = createApp(services);

  const request = requestsTo(app);

  return {
    config,
    services,
    app,
    databasePath: config.databasePath,
    /** The service's SQLite database, and synchronous stores on it for tests that inspect or stage records. */
    db,
    store: createSettlementStore(db),
    swapStore: createSwapSettlementStore(db),
    request,
    post: (path: string, body: unknown, headers?: Record<string, string>) => request("POST", path, body, headers),
    get: (path: string, headers?: Record<string, string>) => request("GET", path, undefined, headers),
    stop: () => services.stop(),
  };
}
