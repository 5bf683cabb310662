import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFromManifest } from "../../scripts/devnet/service-config";
import type { Config, ConfigInput } from "../../src/config/schema";
import type { AnyFlow } from "../../src/flow";
import { parseAuthorization } from "../../src/settlement/authorization";
import { eoaPaymentId } from "../../src/settlement/settle-payment";
import { settlementOf } from "../../src/settlement/settlement-store";
import { getTestDevnet } from "./devnet";
import { type PaymentBody, serviceOf } from "./service-of";

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
  return serviceOf(config, logSink, flows);
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
  const paymentId = eoaPaymentId(runtime, authorization.from, authorization.nonce);
  const record = claimed ?? service.store.claim(settlementOf(network, authorization, paymentId)).record;
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
