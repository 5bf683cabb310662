// What the event tests of each flow share: a service delivering every event to one receiver, the events one payment
// produced as that receiver saw them, and the checks that an event's data is the lookup's record and that the record
// says what the chain says.
import { afterAll, expect } from "bun:test";
import { paymentIdOf } from "@relay402/client/wire/payment-id";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { Hex } from "viem";
import type { NetworkName } from "../../scripts/devnet/start";
import type { ConfigInput } from "../../src/config/schema";
import { PERMIT2 } from "../../src/x402/permit2";
import { chainOf, NETWORK_NAMES, withBlocksStopped } from "../support/chain";
import { type startTestService, trackServices } from "../support/service";
import { until } from "../support/until";
import { newWebhookSecret, type ReceivedDelivery, startWebhookReceiver } from "../support/webhook-receiver";
import { authorizationOf, baseRequirements, bscRequirements, permit2Buyer, permitOf, x402Buyer } from "../x402/support";

type Service = ReturnType<typeof startTestService>;
type Receiver = ReturnType<typeof startWebhookReceiver>;

/** A receiver and the webhooks config of an endpoint sending it every payment and onboarding event, fast. */
export function receiverWithEndpoint() {
  const secret = newWebhookSecret();
  const receiver = startWebhookReceiver(secret);
  const webhooks = (extra: Partial<NonNullable<ConfigInput["webhooks"]>> = {}) => ({
    endpoints: [{ id: "shop", url: receiver.url, secret }],
    pollMs: 50,
    retryScheduleSeconds: [0.2, 0.5],
    ...extra,
  });
  return { receiver, webhooks };
}

/** A service of `services` whose endpoint is `webhooks()`; `configure` as startTestService's. */
export function serviceWithWebhooks(
  services: ReturnType<typeof trackServices>,
  webhooks: ReturnType<typeof receiverWithEndpoint>["webhooks"],
  options: { pendingAfterSeconds?: number; pollMs?: number; configure?: Parameters<typeof startTestService>[1] } = {},
) {
  const { configure, ...extra } = options;
  return services.start({ webhooks: webhooks(extra) }, configure);
}

/**
 * A service of `services` whose endpoint is `webhooks()` and which gives up its receipt wait after 1.5 s (a settle on
 * stopped blocks answers pending that soon) and replaces no transaction within the test.
 */
export function slowServiceWithWebhooks(
  services: ReturnType<typeof trackServices>,
  webhooks: ReturnType<typeof receiverWithEndpoint>["webhooks"],
  options: { pendingAfterSeconds?: number } = {},
) {
  return serviceWithWebhooks(services, webhooks, {
    ...options,
    configure: (config) => {
      for (const network of NETWORK_NAMES) {
        const settings = config.networks[network];
        if (settings) Object.assign(settings, { receiptTimeoutMs: 1_500, replaceAfterMs: 60_000 });
      }
    },
  });
}

/**
 * What an event test file starts with: the receiver and its endpoint, the file's services (stopped with the receiver
 * after its tests), and `service` delivering every event to it; `options` as serviceWithWebhooks's.
 */
export function eventTestbed(options: Parameters<typeof serviceWithWebhooks>[2] = {}) {
  const services = trackServices();
  const { receiver, webhooks } = receiverWithEndpoint();
  afterAll(() => {
    services.stopAll();
    receiver.stop();
  });
  return { services, receiver, webhooks, service: serviceWithWebhooks(services, webhooks, options) };
}

/** The acknowledged events of one payment, in the order they arrived (each webhook-id once). */
export const eventsOfPayment = (receiver: Receiver, paymentId: string): ReceivedDelivery[] =>
  receiver.unique().filter((delivery) => delivery.data.paymentId === paymentId);

/** Payment events are delivered after each settle and every 50 ms: this long with none more means none is coming. */
const SETTLE_MS = 500;

/**
 * Waits until the payment's events are `types`, in that order, then a moment more to see that no other one follows.
 * Answers them.
 */
export async function expectEvents(receiver: Receiver, paymentId: string, types: readonly string[]) {
  await until(
    `the events ${types.join(", ")} of ${paymentId}`,
    () => eventsOfPayment(receiver, paymentId).length >= types.length,
    { timeoutMs: 15_000 },
  );
  await Bun.sleep(SETTLE_MS);
  const events = eventsOfPayment(receiver, paymentId);
  expect(events.map((event) => event.type)).toEqual([...types]);
  expect(receiver.rejected).toEqual([]);
  return events;
}

/** A concluded payment's event carries the lookup's record: GET /payments/{paymentId} answers the same now. */
export async function expectLookupRecord(service: Service, event: ReceivedDelivery | undefined) {
  const paymentId = event?.data.paymentId as string;
  const looked = await service.get(`/payments/${paymentId}`);
  expect(looked.status).toBe(200);
  expect(event?.data).toEqual(looked.body);
  return looked.body as Record<string, unknown>;
}

/**
 * The record names a transaction the chain has mined, with its receipt's outcome, block and (when the executors
 * paid for it: `ours`) its gas used and effective gas price; a transaction of someone else has no figures of ours.
 */
export async function expectRecordOnChain(
  network: NetworkName,
  record: Record<string, unknown>,
  { ours = true }: { ours?: boolean } = {},
) {
  expect(record.transaction).toMatch(/^0x[0-9a-f]{64}$/);
  const receipt = await chainOf(network).public.getTransactionReceipt({ hash: record.transaction as Hex });
  expect(receipt.status).toBe(record.status === "settled" ? "success" : "reverted");
  expect(record.block).toBe(Number(receipt.blockNumber));
  expect(record.gasUsed).toBe(ours ? receipt.gasUsed.toString() : null);
  expect(record.effectiveGasPrice).toBe(ours ? receipt.effectiveGasPrice.toString() : null);
  return receipt;
}

/**
 * With blocks stopped: runs `settling`, waits until the payment's transaction is in the node's pool (the lookup names
 * it), runs `frontRun` (a transaction that outbids ours into the same block), mines that block and answers what the
 * settle answered.
 */
export async function settleWhileFrontRun<T>(
  service: Service,
  network: NetworkName,
  paymentId: string,
  settling: () => Promise<T>,
  frontRun: () => Promise<unknown>,
): Promise<T> {
  const c = chainOf(network);
  return withBlocksStopped(network, async () => {
    const answer = settling();
    await until("the settlement transaction in the pool", async () => {
      const looked = await service.get(`/payments/${paymentId}`);
      if (looked.status !== 200 || !looked.body.transaction) return false;
      return c.public.getTransaction({ hash: looked.body.transaction as Hex }).then(
        () => true,
        () => false,
      );
    });
    await frontRun();
    await c.test.mine({ blocks: 1 });
    return answer;
  });
}

/** x402's exact method on each devnet network: EIP-3009 on base's token, Permit2 on bsc's; the payment's id of each. */
export const X402_EXACT = {
  base: {
    price: 1_250_000n,
    buyer: () => x402Buyer(),
    requirements: baseRequirements,
    paymentId: (payment: PaymentPayload) => {
      const { from, nonce } = authorizationOf(payment).authorization;
      const c = chainOf("base");
      return paymentIdOf({ chainId: c.info.chainId, contract: c.token.address, payer: from, nonce });
    },
  },
  bsc: {
    price: 2n * 10n ** 18n,
    buyer: () => permit2Buyer(),
    requirements: bscRequirements,
    paymentId: (payment: PaymentPayload) => {
      const { from, nonce } = permitOf(payment).permit2Authorization;
      return paymentIdOf({
        chainId: chainOf("bsc").info.chainId,
        contract: PERMIT2,
        payer: from,
        nonce: BigInt(nonce),
      });
    },
  },
} as const;

/** The body of /settle for an x402 v2 payment. */
export const x402Body = (paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements) => ({
  x402Version: 2,
  paymentPayload,
  paymentRequirements,
});
