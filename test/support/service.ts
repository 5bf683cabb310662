import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFromManifest } from "../../scripts/devnet/service-config";
import type { Config, ConfigInput } from "../../src/config/schema";
import { openDatabase } from "../../src/db/open";
import { createSqliteStores } from "../../src/db/stores";
import type { AnyFlow } from "../../src/flow";
import { createApp } from "../../src/http/app";
import { createLogger } from "../../src/logger";
import { createServices, denyPolicyOf } from "../../src/services";
import { type PaymentPayloadBody, parseAuthorization } from "../../src/settlement/authorization";
import { createSettlementStore, settlementOf } from "../../src/settlement/settlement-store";
import { createSwapSettlementStore } from "../../src/swap/swap-store";
import { getTestDevnet } from "./devnet";

type PaymentBody = { paymentPayload: PaymentPayloadBody };

/**
 * The service on the test devnet with a real SQLite file of its own, driven through `app.handle`.
 * Call `stop()` in afterAll.
 */
export function startTestService(
  overrides: Partial<ConfigInput> = {},
  configure?: (config: Config) => void,
  logSink?: (line: string) => void,
  /** The flows to serve (default src/flows.ts's list): a test adds a throwaway flow here. */
  flows?: readonly AnyFlow[],
) {
  const databasePath = overrides.databasePath ?? join(mkdtempSync(join(tmpdir(), "relay402-test-")), "relay402.sqlite");
  const config = configFromManifest(getTestDevnet().devnet.manifest, {
    rateLimitPerMinute: 1_000_000,
    logRequests: false,
    ...overrides,
    databasePath,
  });
  configure?.(config);
  const logger = createLogger(logSink ? { sink: logSink } : { silent: true });
  // The tests read and write the records beside the service: the same SQLite file, synchronous stores on it.
  const db = openDatabase(config.databasePath);
  const services = createServices(config, logger, undefined, createSqliteStores(db, denyPolicyOf(config)), flows);
  const app = createApp(services);

  const request = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
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

  return {
    config,
    services,
    app,
    databasePath,
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

/** Services a test file starts; `stopAll` (in afterAll) stops every one, also those a failed test left running. */
export function trackServices() {
  const started: ReturnType<typeof startTestService>[] = [];
  return {
    start(...args: Parameters<typeof startTestService>) {
      const service = startTestService(...args);
      started.push(service);
      return service;
    },
    stopAll() {
      for (const service of started) {
        try {
          service.stop();
        } catch {}
      }
    },
  };
}

/**
 * What /settle does up to the broadcast: the payment's record (`claimed` earlier, else claimed now) is marked sent
 * with a transaction signed at the executor's next nonce, and nothing reaches the node.
 */
export async function signUnsent(
  service: ReturnType<typeof startTestService>,
  network: string,
  body: PaymentBody,
  claimed?: { id: number },
) {
  const authorization = parseAuthorization(body.paymentPayload);
  const runtime = service.services.networks.get(network);
  const record = claimed ?? service.store.claim(settlementOf(network, authorization)).record;
  const prepared = await runtime.executor.prepare({
    to: runtime.config.contracts.relayer!,
    data: service.services.relayerFor(runtime).transferCallData(authorization),
    gas: 250_000n,
  });
  service.store.markSent(record.id, prepared.hash, prepared.raw);
  return { authorization, prepared, recordId: record.id };
}

/** `signUnsent`, then a "crash": the service stops with the signed transaction stored and never broadcast. */
export async function signThenCrash(service: ReturnType<typeof startTestService>, network: string, body: PaymentBody) {
  const signed = await signUnsent(service, network, body);
  service.stop();
  return signed;
}
