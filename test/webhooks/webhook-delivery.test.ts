// A settle's event reaches a merchant's receiver, signed as Standard Webhooks say (verified by the standardwebhooks
// library), with the lookup's record as its data; the outbox row is written by the database in the transaction
// of the status change. Real devnet, real SQLite, real HTTP receivers.
import { afterAll, describe, expect, test } from "bun:test";
import type { Hex } from "viem";
import { signedPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, NETWORK_NAMES, randomAddress } from "../support/chain";
import { trackServices } from "../support/service";
import { until } from "../support/until";
import { newWebhookSecret, startWebhookReceiver } from "../support/webhook-receiver";

const services = trackServices();
const receivers: ReturnType<typeof startWebhookReceiver>[] = [];
afterAll(() => {
  services.stopAll();
  for (const receiver of receivers) receiver.stop();
});

const secret = newWebhookSecret();
const receiver = startWebhookReceiver(secret);
receivers.push(receiver);
const service = services.start({
  webhooks: { endpoints: [{ id: "shop", url: receiver.url, secret }], pollMs: 50 },
});

for (const network of NETWORK_NAMES) {
  describe(`${network}: payment.settled`, () => {
    test("reaches the receiver signed, with the lookup's record, once", async () => {
      const unit = 10n ** BigInt(chainOf(network).token.decimals);
      const payer = await freshPayer(network);
      await approveRelayer(network, payer.key, 100n * unit);
      const to = randomAddress();
      const body = await signedPayment({ network, key: payer.key, to, value: 3n * unit });
      const settled = await service.post("/settle", body);
      expect(settled.status).toBe(200);
      const paymentId = settled.body.paymentId as Hex;
      await until(
        "the payment.settled delivery",
        () => receiver.of("payment.settled", (data) => data.paymentId === paymentId).length === 1,
      );
      const [delivery] = receiver.of("payment.settled", (data) => data.paymentId === paymentId);
      const record = await service.get(`/payments/${paymentId}`);
      expect(delivery?.data).toEqual(record.body);
      expect(delivery?.data).toMatchObject({ status: "settled", transaction: settled.body.transaction, network });
      expect(delivery?.id).toMatch(/^msg_[0-9a-f]{32}$/);
      expect(receiver.rejected).toEqual([]);
    });
  });
}
