// Every way an EOA swap's settle (/swap/settle, the relayer's swapWithAuthorization) can end produces its documented
// events (docs/webhooks.md, "Events of each flow"), whose data is the lookup's record, which says what the chain
// says: success, pending then success, a revert caused by the market (a front-runner moves the pool past the signed
// minimum), and a different signed swap taking the nonce first (nonce_error). Real devnet, DEX, SQLite and receiver.
import { describe, expect, test } from "bun:test";
import { paymentIdOf } from "@relay402/client/wire/payment-id";
import { relayerSwapAbi } from "@relay402/client/wire/swap/abis";
import type { Address, Hex } from "viem";
import { approveRelayer, chainOf, freshPayer, NETWORK_NAMES, randomAddress, tokenBalance } from "../support/chain";
import { mToWQuoteBody, signQuotedSwap, swapTokensOf, v3Whale } from "../support/dex";
import { until } from "../support/until";
import {
  eventsOfPayment,
  eventTestbed,
  expectEvents,
  expectLookupRecord,
  expectRecordOnChain,
  settleWhileFrontRun,
  slowServiceWithWebhooks,
} from "./events-support";

type Network = (typeof NETWORK_NAMES)[number];
type Message = Record<string, unknown>;

const { services, receiver, webhooks, service } = eventTestbed();
/** Gives up its receipt wait after 1.5 s (the settle answers 202) and raises payment.pending after 1 s. */
const slow = slowServiceWithWebhooks(services, webhooks, { pendingAfterSeconds: 1 });

/**
 * A fresh payer's M -> W swap of 50 M (the V3 route the devnet seeds), quoted in mode eoa at 0.1 % slippage and
 * signed as it comes; `other` is a different swap signed with the same nonce (any minimum).
 */
async function signedSwap(network: Network) {
  const t = swapTokensOf(network);
  const payer = await freshPayer(network);
  const sellAmount = 50n * t.unit;
  await approveRelayer(network, payer.key, 2n * sellAmount);
  const recipient = randomAddress();
  const quoted = await service.post(
    "/swap/quote",
    mToWQuoteBody(network, payer.address, recipient, sellAmount, { slippageBps: 10 }),
  );
  expect(quoted.status).toBe(200);
  const quote = quoted.body;
  const { message } = quote.typedData;
  const sign = (signed: Message) => signQuotedSwap(network, payer.key, quote, signed);
  const paymentId = paymentIdOf({
    chainId: t.c.info.chainId,
    contract: t.c.info.relayer,
    payer: payer.address,
    nonce: message.nonce as Hex,
  });
  const signed = await sign(message);
  const other = await sign({ ...structuredClone(message), minBuyAmount: "1" });
  return { t, payer, quote, sellAmount, recipient, paymentId, signed, other };
}

/** Submits a signed swap straight to the relayer with a tip that puts it ahead of anything pending. */
function submitDirectly(network: Network, key: Hex, swap: Awaited<ReturnType<typeof signedSwap>>["other"]) {
  return chainOf(network)
    .walletFor(key)
    .writeContract({
      address: chainOf(network).info.relayer,
      abi: relayerSwapAbi,
      functionName: "swapWithAuthorization",
      args: [swap.authorization, swap.signature, swap.route],
      gas: 700_000n,
      maxPriorityFeePerGas: 100n * 10n ** 9n,
      maxFeePerGas: 1000n * 10n ** 9n,
    });
}

const balanceOf = (network: Network, token: Address, holder: Address) => tokenBalance(network, token, holder);

for (const network of NETWORK_NAMES) {
  describe(`${network}: the events of an EOA swap (/swap/settle)`, () => {
    test("success: payment.settled alone, the lookup's record with the fee, the receipt's block and gas", async () => {
      const { t, payer, quote, sellAmount, recipient, paymentId, signed } = await signedSwap(network);
      const settled = await service.post("/swap/settle", signed.body);
      expect(settled.body).toMatchObject({ success: true, paymentId });
      const [event] = await expectEvents(receiver, paymentId, ["payment.settled"]);
      const record = await expectLookupRecord(service, event);
      expect(record).toMatchObject({
        status: "settled",
        flow: "swap",
        transaction: settled.body.transaction,
        amount: sellAmount.toString(),
        fee: quote.fee,
      });
      await expectRecordOnChain(network, record);
      expect(await balanceOf(network, t.m, payer.address)).toBe(1000n * t.unit - sellAmount);
      expect(await balanceOf(network, t.w, recipient)).toBe(BigInt(settled.body.swap.buyAmount));
    }, 30_000);

    test("pending then success: 202 and payment.pending while unmined, then payment.settled once mined, with no settle in between", async () => {
      const { t, recipient, paymentId, signed } = await signedSwap(network);
      await t.c.test.setAutomine(false);
      let pending: Awaited<ReturnType<typeof slow.post>>;
      try {
        pending = await slow.post("/swap/settle", signed.body);
        await until("the payment.pending delivery", () => eventsOfPayment(receiver, paymentId).length === 1, {
          timeoutMs: 15_000,
        });
        await t.c.test.mine({ blocks: 1 });
      } finally {
        await t.c.test.setAutomine(true);
      }
      expect(pending.status).toBe(202);
      // Nobody settles it again: the service resumes the record once its receipt wait is long past.
      const [early, late] = await expectEvents(receiver, paymentId, ["payment.pending", "payment.settled"]);
      const done = await slow.post("/swap/settle", signed.body);
      expect(done.body).toMatchObject({ success: true, paymentId });
      expect(early?.data).toMatchObject({ status: "pending", transaction: done.body.transaction, block: null });
      await expectRecordOnChain(network, await expectLookupRecord(slow, late));
      expect(await balanceOf(network, t.w, recipient)).toBe(BigInt(done.body.swap.buyAmount));
    }, 30_000);

    test("the market moves past the signed minimum: reverted on-chain, payment.failed with its block and gas", async () => {
      const { t, payer, quote, recipient, paymentId, signed } = await signedSwap(network);
      const whale = await v3Whale(network, quote.route[0].fee);
      let settled: Awaited<ReturnType<typeof service.post>>;
      try {
        settled = await settleWhileFrontRun(
          service,
          network,
          paymentId,
          () => service.post("/swap/settle", signed.body),
          () => whale.buy(20_000n * t.unit, 1_000n * 10n ** 9n),
        );
      } finally {
        await whale.restore();
      }
      expect([settled.status, settled.body.code]).toEqual([500, "payment_settlement_error"]);
      const [event] = await expectEvents(receiver, paymentId, ["payment.failed"]);
      const record = await expectLookupRecord(service, event);
      expect(record).toMatchObject({ status: "failed", flow: "swap", transaction: settled.body.details.transaction });
      await expectRecordOnChain(network, record);
      expect(await balanceOf(network, t.m, payer.address)).toBe(1000n * t.unit);
      expect(await balanceOf(network, t.w, recipient)).toBe(0n);
    }, 30_000);

    test("another swap signed with the nonce is mined first: nonce_error, payment.failed naming our mined transaction", async () => {
      const { t, payer, sellAmount, paymentId, signed, other } = await signedSwap(network);
      const settled = await settleWhileFrontRun(
        service,
        network,
        paymentId,
        () => service.post("/swap/settle", signed.body),
        () => submitDirectly(network, payer.key, other),
      );
      expect([settled.status, settled.body.code]).toEqual([400, "nonce_error"]);
      const [event] = await expectEvents(receiver, paymentId, ["payment.failed"]);
      const record = await expectLookupRecord(service, event);
      expect(record).toMatchObject({ status: "failed", flow: "swap" });
      await expectRecordOnChain(network, record);
      // One swap happened, the other one's: the payer sold once.
      expect(await balanceOf(network, t.m, payer.address)).toBe(1000n * t.unit - sellAmount);
    }, 30_000);
  });
}
