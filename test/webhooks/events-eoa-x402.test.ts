// Every way a relayer or x402 settle can end produces its documented events (docs/webhooks.md, "Events of each
// flow"), and the event's data is the lookup's record, which says what the chain says: success, pending then
// success, an on-chain revert, a front-run that takes the nonce (nonce_error). Real devnet, real SQLite, a real
// receiver verifying every signature; the chain's receipts and balances judge.
import { describe, expect, test } from "bun:test";
import type { PaymentPayload } from "@x402/core/types";
import type { Address, Hex } from "viem";
import { readyPayment, signedPayment, submitAhead } from "../support/authorization";
import {
  approveRelayer,
  chainOf,
  freshPayer,
  NETWORK_NAMES,
  randomAddress,
  tokenBalance,
  withBlocksStopped,
} from "../support/chain";
import { until } from "../support/until";
import { authorizationOf, permitOf, signPermit, signTransfer, submitToProxy, submitToToken } from "../x402/support";
import {
  eventsOfPayment,
  eventTestbed,
  expectEvents,
  expectLookupRecord,
  expectRecordOnChain,
  settleWhileFrontRun,
  slowServiceWithWebhooks,
  X402_EXACT,
  x402Body,
} from "./events-support";

type Network = (typeof NETWORK_NAMES)[number];

const { services, receiver, webhooks, service } = eventTestbed();
/** Gives up its receipt wait after 1.5 s (the settle answers pending) and raises payment.pending after 1 s. */
const slow = slowServiceWithWebhooks(services, webhooks, { pendingAfterSeconds: 1 });

const unit = (network: Network) => 10n ** BigInt(chainOf(network).token.decimals);

/**
 * Settles with blocks stopped: the answer is pending and payment.pending follows; then the block is mined and nobody
 * settles again: the service resumes the record once its receipt wait is long past, and payment.settled follows. Only
 * then is the body settled again, for the final answer.
 */
async function pendingThenSettled(network: Network, paymentId: string, settle: () => ReturnType<typeof service.post>) {
  const pending = await withBlocksStopped(network, async () => {
    const answer = await settle();
    await until("the payment.pending delivery", () => eventsOfPayment(receiver, paymentId).length === 1, {
      timeoutMs: 15_000,
    });
    await chainOf(network).test.mine({ blocks: 1 });
    return answer;
  });
  const events = await expectEvents(receiver, paymentId, ["payment.pending", "payment.settled"]);
  return { pending, events, done: await settle() };
}

for (const network of NETWORK_NAMES) {
  describe(`${network}: the events of an EOA settle (relay402 body, /settle)`, () => {
    test("success: payment.settled alone, the lookup's record, the receipt's block and gas, the payee paid", async () => {
      const { to, body, paymentId } = await readyPayment(network, 3n * unit(network));
      const settled = await service.post("/settle", body);
      expect(settled.status).toBe(200);
      const [event] = await expectEvents(receiver, paymentId, ["payment.settled"]);
      const record = await expectLookupRecord(service, event);
      expect(record).toMatchObject({ status: "settled", transaction: settled.body.transaction, flow: "eoa" });
      await expectRecordOnChain(network, record);
      expect(await tokenBalance(network, chainOf(network).token.address, to)).toBe(3n * unit(network));
    }, 30_000);

    test("pending then success: payment.pending while unmined, then payment.settled once mined, with no settle in between", async () => {
      const { to, body, paymentId } = await readyPayment(network, 2n * unit(network));
      const { pending, events, done } = await pendingThenSettled(network, paymentId, () => slow.post("/settle", body));
      expect(pending.status).toBe(202);
      expect(done.status).toBe(200);
      const [early, late] = events;
      expect(early?.data).toMatchObject({ status: "pending", transaction: done.body.transaction, block: null });
      const record = await expectLookupRecord(slow, late);
      expect(record).toMatchObject({ status: "settled", transaction: done.body.transaction });
      await expectRecordOnChain(network, record);
      expect(await tokenBalance(network, chainOf(network).token.address, to)).toBe(2n * unit(network));
    }, 30_000);

    test("front-run: another authorization takes the nonce, nonce_error; payment.failed naming our mined transaction", async () => {
      const c = chainOf(network);
      const { payer, to, body, paymentId } = await readyPayment(network, 5n * unit(network));
      const nonce = body.paymentPayload.payload.authorization.nonce as Hex;
      const accomplice = randomAddress();
      const theft = await signedPayment({ network, key: payer.key, to: accomplice, value: 1n, nonce });
      const settled = await settleWhileFrontRun(
        service,
        network,
        paymentId,
        () => service.post("/settle", body),
        () => submitAhead(payer.key, theft),
      );
      expect([settled.status, settled.body.code]).toEqual([400, "nonce_error"]);
      const [event] = await expectEvents(receiver, paymentId, ["payment.failed"]);
      const record = await expectLookupRecord(service, event);
      expect(record).toMatchObject({ status: "failed", failureReason: "nonce used by a different authorization" });
      // Our transaction was mined (reverted, its gas paid): the record names it with its block and cost.
      await expectRecordOnChain(network, record);
      expect(await tokenBalance(network, c.token.address, to)).toBe(0n);
      expect(await tokenBalance(network, c.token.address, accomplice)).toBe(1n);
    }, 30_000);
  });
}

describe("base: an EOA payment someone else submits first", () => {
  test("payment.settled naming their transaction, with none of our gas figures", async () => {
    const network = "base";
    const c = chainOf(network);
    const { to, body, paymentId } = await readyPayment(network, unit(network));
    const outsider = await freshPayer(network, { tokens: 0n });
    const settled = await settleWhileFrontRun(
      service,
      network,
      paymentId,
      () => service.post("/settle", body),
      () => submitAhead(outsider.key, body),
    );
    expect(settled.status).toBe(200);
    const [event] = await expectEvents(receiver, paymentId, ["payment.settled"]);
    const record = await expectLookupRecord(service, event);
    expect(record).toMatchObject({ status: "settled", transaction: settled.body.transaction });
    const theirs = await expectRecordOnChain(network, record, { ours: false });
    expect(theirs.from).toBe(outsider.address.toLowerCase() as Address);
    expect(await tokenBalance(network, c.token.address, to)).toBe(unit(network));
  }, 30_000);
});

describe("bsc: an EOA settle that reverts on-chain", () => {
  test("two payments of a payer holding one, mined in one block: payment.settled for one, payment.failed for the other", async () => {
    const network = "bsc";
    const c = chainOf(network);
    const value = 10n * unit(network);
    const payer = await freshPayer(network, { tokens: value });
    await approveRelayer(network, payer.key, 2n * value);
    const [first, second] = [
      await readyPayment(network, value, { payer }),
      await readyPayment(network, value, { payer }),
    ];
    const answers = await withBlocksStopped(network, async () => {
      const settling = Promise.all([service.post("/settle", first.body), service.post("/settle", second.body)]);
      await until("both settlement transactions in the pool", async () => {
        const status = (await c.public.request({ method: "txpool_status" as never })) as { pending: Hex | number };
        return Number(status.pending) >= 2;
      });
      await c.test.mine({ blocks: 1 });
      return settling;
    });
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 500]);
    const [paid, reverted] = answers[0]?.status === 200 ? [first, second] : [second, first];
    const [settledEvent] = await expectEvents(receiver, paid.paymentId, ["payment.settled"]);
    await expectRecordOnChain(network, await expectLookupRecord(service, settledEvent));
    const [failedEvent] = await expectEvents(receiver, reverted.paymentId, ["payment.failed"]);
    const record = await expectLookupRecord(service, failedEvent);
    expect(record).toMatchObject({ status: "failed", failureReason: "reverted" });
    await expectRecordOnChain(network, record);
    expect(await tokenBalance(network, c.token.address, paid.to)).toBe(value);
    expect(await tokenBalance(network, c.token.address, reverted.to)).toBe(0n);
  }, 30_000);
});

const x402Networks = {
  base: {
    ...X402_EXACT.base,
    /** The payer spends the nonce on a transfer of 1 unit to an accomplice, straight on the token. */
    frontRun: async (key: Hex, payment: PaymentPayload, accomplice: Address) => {
      const { nonce } = authorizationOf(payment).authorization;
      return submitToToken(key, await signTransfer(key, { to: accomplice, value: 1n, nonce }));
    },
  },
  bsc: {
    ...X402_EXACT.bsc,
    /** The payer spends the Permit2 nonce on a permit of 1 unit to an accomplice, through x402's proxy. */
    frontRun: async (key: Hex, payment: PaymentPayload, accomplice: Address) => {
      const nonce = BigInt(permitOf(payment).permit2Authorization.nonce);
      return submitToProxy(key, await signPermit(key, { to: accomplice, amount: 1n, nonce }));
    },
  },
} as const;

for (const network of ["base", "bsc"] as const) {
  const x = x402Networks[network];
  const method = network === "base" ? "EIP-3009" : "Permit2";
  const balanceOf = (holder: string) => tokenBalance(network, chainOf(network).token.address, holder as Address);

  describe(`${network}: the events of an x402 v2 settle (exact, ${method})`, () => {
    test("success: payment.settled alone, the lookup's record, the receipt's block and gas, the merchant paid", async () => {
      const buyer = await x.buyer();
      const requirements = x.requirements(x.price);
      const payment = await buyer.pay(requirements);
      const paymentId = x.paymentId(payment);
      const settled = await service.post("/settle", x402Body(payment, requirements));
      expect(settled.body).toMatchObject({ success: true, extra: { paymentId } });
      const [event] = await expectEvents(receiver, paymentId, ["payment.settled"]);
      const record = await expectLookupRecord(service, event);
      expect(record).toMatchObject({ status: "settled", transaction: settled.body.transaction, flow: "x402" });
      await expectRecordOnChain(network, record);
      expect(await balanceOf(requirements.payTo)).toBe(x.price);
    }, 30_000);

    test("pending then success: settlement_pending and payment.pending, then payment.settled once mined, with no settle in between", async () => {
      const buyer = await x.buyer();
      const requirements = x.requirements(x.price);
      const payment = await buyer.pay(requirements);
      const paymentId = x.paymentId(payment);
      const { pending, events, done } = await pendingThenSettled(network, paymentId, () =>
        slow.post("/settle", x402Body(payment, requirements)),
      );
      expect(pending).toMatchObject({ status: 200, body: { success: false, errorReason: "settlement_pending" } });
      // The resume recorded the outcome; the one success answer is still the client's.
      expect(done.body).toMatchObject({ success: true, extra: { paymentId } });
      const [early, late] = events;
      expect(early?.data).toMatchObject({ status: "pending", transaction: done.body.transaction });
      const record = await expectLookupRecord(slow, late);
      await expectRecordOnChain(network, record);
      expect(await balanceOf(requirements.payTo)).toBe(x.price);
    }, 30_000);

    test("front-run: the payer spends the nonce first; never a success, payment.failed naming our mined transaction", async () => {
      const buyer = await x.buyer();
      const requirements = x.requirements(x.price);
      const payment = await buyer.pay(requirements);
      const paymentId = x.paymentId(payment);
      const accomplice = randomAddress();
      const settled = await settleWhileFrontRun(
        service,
        network,
        paymentId,
        () => service.post("/settle", x402Body(payment, requirements)),
        () => x.frontRun(buyer.key, payment, accomplice),
      );
      expect(settled.body).toMatchObject({ success: false, extra: { paymentId } });
      const [event] = await expectEvents(receiver, paymentId, ["payment.failed"]);
      const record = await expectLookupRecord(service, event);
      expect(record).toMatchObject({ status: "failed", flow: "x402" });
      await expectRecordOnChain(network, record);
      expect(await balanceOf(requirements.payTo)).toBe(0n);
      expect(await balanceOf(accomplice)).toBe(1n);
    }, 30_000);
  });
}
