// What the UserOp flows' event tests share (events-userops.test.ts, events-deploy-incognito.test.ts): services whose
// bundler on each network is a proxy in front of the devnet's Alto (it can swallow a UserOp, or run something just
// before the UserOp reaches the bundler), a webhook receiver per service, the check that a payment's events are
// exactly the documented ones with the lookup's record as data, the check of a UserOp's record against its
// receipt, and a shield ready to settle.
import { expect } from "bun:test";
import { entryPointAbi } from "@relay402/client/wire/abis";
import { newNote } from "@relay402/client/wire/incognito/notes";
import { type Hex, parseEventLogs } from "viem";
import { configFromManifest } from "../../scripts/devnet/service-config";
import type { NetworkName } from "../../scripts/devnet/start";
import type { Config, ConfigInput } from "../../src/config/schema";
import { createIssuedUserOpStorePostgres } from "../../src/userops/issued-user-op-store-postgres";
import { createIssuedUserOpStore } from "../../src/userops/issued-user-op-store-sqlite";
import { chainOf, NETWORK_NAMES } from "../support/chain";
import { postgresService } from "../support/dashboard";
import { getTestDevnet } from "../support/devnet";
import { body as incognitoBody, incognitoNetwork, shieldData } from "../support/incognito-service";
import { jsonRpcProxy } from "../support/json-rpc-proxy";
import { trackServices } from "../support/service";
import { until } from "../support/until";
import { deployFundedWallet } from "../support/wallet";
import { newWebhookSecret, startWebhookReceiver } from "../support/webhook-receiver";
import { settleBody, units } from "../wallets/support";

/** Per network, what the bundler proxy does with the next eth_sendUserOperation. */
export type BundlerStall = {
  /** While set: eth_sendUserOperation is answered with this hash and nothing is sent (a bundler that lost it). */
  swallowing: Hex | null;
  /** Run once, just before the next UserOp reaches the bundler (after the settle's own checks). */
  beforeSend: (() => Promise<void>) | null;
};

type Answer = { status: number; body: any; headers: Headers };

/** What the event tests call on a service, on either database. */
export type EventService = {
  config: Config;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Answer>;
  get(path: string, headers?: Record<string, string>): Promise<Answer>;
  /** The actualGasCost the service stored for a UserOp. */
  storedGasCost(hash: Hex): Promise<string | null | undefined>;
};

export type Testbed = { service: EventService; receiver: ReturnType<typeof startWebhookReceiver> };

type TestbedOptions = { pendingAfterSeconds?: number; receiptTimeoutMs?: number };

/** Services on the devnet behind stallable bundlers, each with a webhook endpoint of its own; `stop()` in afterAll. */
export function eventTestbed() {
  const services = trackServices();
  const onPostgres: Awaited<ReturnType<typeof postgresService>>[] = [];
  const receivers: ReturnType<typeof startWebhookReceiver>[] = [];
  const stalls = Object.fromEntries(
    NETWORK_NAMES.map((network) => [network, { swallowing: null, beforeSend: null } as BundlerStall]),
  ) as Record<NetworkName, BundlerStall>;
  const proxies = NETWORK_NAMES.map((network) =>
    jsonRpcProxy(chainOf(network).info.bundlerUrl, {
      async answer(call) {
        if (call.method !== "eth_sendUserOperation") return undefined;
        const stall = stalls[network];
        const before = stall.beforeSend;
        stall.beforeSend = null;
        await before?.();
        return stall.swallowing ?? undefined;
      },
    }),
  );

  /** The webhooks of a fresh receiver (every payment event, default filters) and the bundlers behind the proxies. */
  function configure(options: TestbedOptions) {
    const secret = newWebhookSecret();
    const receiver = startWebhookReceiver(secret);
    receivers.push(receiver);
    const overrides: Partial<ConfigInput> = {
      webhooks: {
        endpoints: [{ id: "hooks", url: receiver.url, secret }],
        pollMs: 50,
        ...(options.pendingAfterSeconds ? { pendingAfterSeconds: options.pendingAfterSeconds } : {}),
      },
    };
    const configure = (config: Config) => {
      for (const [index, network] of NETWORK_NAMES.entries()) {
        const settings = config.networks[network];
        if (!settings) throw new Error(`${network} not configured`);
        settings.bundlerUrl = (proxies[index] as (typeof proxies)[number]).url;
        if (options.receiptTimeoutMs) settings.receiptTimeoutMs = options.receiptTimeoutMs;
      }
    };
    return { receiver, overrides, configure };
  }

  /**
   * A service on SQLite whose webhook endpoint `hooks` is a fresh receiver. `pendingAfterSeconds` and
   * `receiptTimeoutMs` short: a UserOp the bundler swallowed answers 202 and raises payment.pending within seconds.
   */
  function start(options: TestbedOptions = {}) {
    const { receiver, overrides, configure: apply } = configure(options);
    const service = services.start(overrides, apply);
    const issued = createIssuedUserOpStore(service.db);
    const storedGasCost = async (hash: Hex) => issued.find(hash)?.actualGasCost;
    return { receiver, service: Object.assign(service, { storedGasCost }) } satisfies Testbed;
  }

  /** The same on the PostgreSQL database at `url`. */
  async function startOnPostgres(url: string, options: TestbedOptions = {}): Promise<Testbed> {
    const { receiver, overrides, configure: apply } = configure(options);
    const config = configFromManifest(getTestDevnet().devnet.manifest, {
      rateLimitPerMinute: 1_000_000,
      logRequests: false,
      databasePath: ":memory:",
      ...overrides,
    });
    apply(config);
    const service = await postgresService(config, url);
    onPostgres.push(service);
    const issued = createIssuedUserOpStorePostgres(service.db);
    return {
      receiver,
      service: { ...service, config, storedGasCost: async (hash) => (await issued.find(hash))?.actualGasCost },
    };
  }

  return {
    start,
    startOnPostgres,
    stalls,
    async stop() {
      services.stopAll();
      await Promise.all(onPostgres.map((service) => service.stop()));
      for (const receiver of receivers) receiver.stop();
      for (const proxy of proxies) proxy.stop();
    },
  };
}

/**
 * Settles with the bundler swallowing the UserOp `hash` on `network`: the answer must be the 202 of it. The swallow
 * ends with the call, so the next settle re-sends the same UserOp.
 */
export async function settleSwallowed(
  stall: BundlerStall,
  settle: () => Promise<{ status: number; body: any }>,
  hash: Hex,
) {
  stall.swallowing = hash;
  try {
    const pending = await settle();
    expect(pending.status).toBe(202);
    expect(pending.body).toMatchObject({ success: false, status: "pending", paymentId: hash });
    return pending;
  } finally {
    stall.swallowing = null;
  }
}

const paymentOf = (paymentId: string) => (data: Record<string, unknown>) => data.paymentId === paymentId;

/** Waits for the receiver to acknowledge the first `type` event of a payment, and answers its data. */
export async function eventOf({ receiver }: Testbed, type: string, paymentId: string) {
  await until(`${type} of ${paymentId}`, () => receiver.of(type, paymentOf(paymentId)).length > 0, {
    timeoutMs: 20_000,
  });
  return (receiver.of(type, paymentOf(paymentId))[0] as { data: Record<string, unknown> }).data;
}

/**
 * The receiver got exactly `types`, in this order, for the payment (deduplicated by webhook-id), the outbox holds
 * no other event of it and every delivery of it is delivered; the last event's data is the lookup's record now.
 * Answers that record.
 */
export async function expectExactlyEvents(testbed: Testbed, paymentId: string, types: string[]) {
  const { service, receiver } = testbed;
  const delivered = () =>
    receiver
      .unique()
      .filter((delivery) => paymentOf(paymentId)(delivery.data))
      .map((delivery) => delivery.type);
  await until(`${types.join(", ")} of ${paymentId}`, () => delivered().length >= types.length, { timeoutMs: 20_000 });
  const admin = { "x-admin-api-key": service.config.adminApiKey };
  // Every event of the payment fanned out and delivered: nothing else is on its way.
  await until(`every delivery of ${paymentId} delivered`, async () => {
    const listed = await service.get(`/admin/webhooks/deliveries?paymentId=${paymentId}`, admin);
    const deliveries = listed.body.deliveries as { status: string }[];
    return deliveries.length >= types.length && deliveries.every((delivery) => delivery.status === "delivered");
  });
  const listed = await service.get(`/admin/webhooks/deliveries?paymentId=${paymentId}`, admin);
  expect((listed.body.deliveries as { type: string }[]).map((delivery) => delivery.type).reverse()).toEqual(types);
  expect(delivered()).toEqual(types);
  expect(receiver.rejected).toEqual([]);
  const record = await service.get(`/payments/${paymentId}`);
  expect(record.status).toBe(200);
  const last = receiver.of(types.at(-1) as string, paymentOf(paymentId))[0];
  expect(last?.data).toEqual(record.body);
  return record.body as Record<string, any>;
}

/**
 * A UserOp's record against the chain: its bundle transaction's receipt (block, gas used, price), the EntryPoint's
 * UserOperationEvent for it (success as the record's status; actualGasCost as the service stored it).
 */
export async function expectUserOpRecordOnChain(
  testbed: Testbed,
  network: NetworkName,
  hash: Hex,
  record: Record<string, any>,
) {
  const receipt = await chainOf(network).public.getTransactionReceipt({ hash: record.transaction });
  expect(receipt.status).toBe("success");
  expect(record).toMatchObject({
    paymentId: hash,
    network,
    block: Number(receipt.blockNumber),
    gasUsed: receipt.gasUsed.toString(),
    effectiveGasPrice: receipt.effectiveGasPrice.toString(),
  });
  const [event] = parseEventLogs({ abi: entryPointAbi, eventName: "UserOperationEvent", logs: receipt.logs }).filter(
    (log) => log.args.userOpHash.toLowerCase() === hash.toLowerCase(),
  );
  if (!event) throw new Error(`no UserOperationEvent of ${hash} in ${record.transaction}`);
  expect(record.status).toBe(event.args.success ? "settled" : "failed");
  expect(await testbed.service.storedGasCost(hash)).toBe(event.args.actualGasCost.toString());
  return event.args;
}

/** A shield of 10 tokens from a wallet holding 20, verified on the testbed's service, and its settle body. */
export async function shield({ service }: Testbed, network: "bsc" | "base") {
  const { token } = incognitoNetwork(network);
  const note = newNote(token, units(network, 10n));
  const { owner, wallet } = await deployFundedWallet(network, units(network, 20n));
  const verified = await service.post("/wallet/incognito/verify", incognitoBody(network, wallet, shieldData(note)));
  expect(verified.status).toBe(200);
  const hash = verified.body.userOpHash as Hex;
  return { note, wallet, hash, verified: verified.body, body: await settleBody(verified.body, owner) };
}
