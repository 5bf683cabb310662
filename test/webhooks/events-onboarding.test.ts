// A funded approve's events (docs/webhooks.md, "Events of each flow"): onboarding.funded once the funding is mined and
// the approve broadcast, then the way it ends: onboarding.approved (and the payment's payment.settled), diverted (the
// payer spent the funding with another transaction of the approve's nonce), abandoned (never mined by its deadline).
// Each event's data is the funded approve's record, whose transactions and costs are what the chain says. Real
// devnet, SQLite and receiver; x402 (erc20ApprovalGasSponsoring) and relay402's EOA flow.
import { describe, expect, test } from "bun:test";
import { paymentIdOf } from "@relay402/client/wire/payment-id";
import { type Address, type Hex, keccak256, parseGwei } from "viem";
import { delegatedPayer, deployDelegate, forwardsTo } from "../onboarding/delegated-payers";
import {
  type Net,
  permit2Payment,
  plainRequirements,
  plainToken,
  signApprove,
  sponsoredBody,
  tokenOnlyPayer,
} from "../onboarding/funded-approve-support";
import { divertedFundedApprove, paidWithFundedApprove } from "../onboarding/funded-payments";
import { signedPayment } from "../support/authorization";
import { chainOf, randomAddress, tokenBalance } from "../support/chain";
import { until } from "../support/until";
import type { ReceivedDelivery } from "../support/webhook-receiver";
import {
  eventsOfPayment,
  eventTestbed,
  expectEvents,
  expectLookupRecord,
  slowServiceWithWebhooks,
} from "./events-support";

/**
 * Fans its events out only after each settle's answer (no poll in the test's time), so an event is rendered once its
 * funded approve has moved past the step the event reports: the data must still report that step.
 */
const { services, receiver, webhooks, service } = eventTestbed({ pollMs: 600_000 });
/** Gives up its receipt wait after 1.5 s, so a settle leaves an approve broadcast and unmined. */
const slow = slowServiceWithWebhooks(services, webhooks);
const price = 10n ** 18n;

/** The onboarding events of one payer, in the order they arrived. */
const onboardingEventsOf = (payer: Address) =>
  receiver
    .unique()
    .filter(
      (event) => event.type.startsWith("onboarding.") && String(event.data.payer).toLowerCase() === payer.toLowerCase(),
    );

/** Waits until the payer's onboarding events are `types`, then a moment more to see that none follows. */
async function expectOnboardingEvents(payer: Address, types: readonly string[]) {
  await until(`the onboarding events ${types.join(", ")}`, () => onboardingEventsOf(payer).length >= types.length, {
    timeoutMs: 15_000,
  });
  await Bun.sleep(500);
  const events = onboardingEventsOf(payer);
  expect(events.map((event) => event.type)).toEqual([...types]);
  return events;
}

/** The fields of a funded approve's event data these checks read. */
type FundedApproveData = Record<
  "payer" | "approveTransaction" | "fundingTransaction" | "fundingWei" | "fundingFeeWei" | "approveCostWei" | "keptWei",
  string
>;

/** The record's approve is the payer's signed one, and its funding a mined transfer of `fundingWei` to the payer. */
async function expectFundingOnChain(network: Net, event: ReceivedDelivery | undefined, raw: Hex) {
  const data = event?.data as FundedApproveData;
  const c = chainOf(network);
  expect(data.approveTransaction).toBe(keccak256(raw));
  const funding = await c.public.getTransaction({ hash: data.fundingTransaction as Hex });
  expect(funding.to?.toLowerCase()).toBe(String(data.payer).toLowerCase());
  expect(funding.value.toString()).toBe(data.fundingWei);
  const receipt = await c.public.getTransactionReceipt({ hash: data.fundingTransaction as Hex });
  expect(receipt.status).toBe("success");
  expect(data.fundingFeeWei).toBe((receipt.gasUsed * receipt.effectiveGasPrice).toString());
  return data;
}

/** An approved record: its approve mined, its cost what the receipt says, the rest of the funding kept by the payer. */
async function expectApprovedOnChain(network: Net, event: ReceivedDelivery | undefined, raw: Hex) {
  const data = await expectFundingOnChain(network, event, raw);
  const approve = await chainOf(network).public.getTransactionReceipt({ hash: keccak256(raw) });
  expect(approve.status).toBe("success");
  const cost = approve.gasUsed * approve.effectiveGasPrice;
  expect(data.approveCostWei).toBe(cost.toString());
  expect(data.keptWei).toBe((BigInt(data.fundingWei) - cost).toString());
}

for (const network of ["bsc", "base"] as const) {
  describe(`${network}: the events of an x402 payment with a funded approve`, () => {
    test("paid: onboarding.funded, onboarding.approved, and the payment's payment.settled", async () => {
      const { payer, raw } = await paidWithFundedApprove(service.post, network);
      const [funded, approved] = await expectOnboardingEvents(payer.address, [
        "onboarding.funded",
        "onboarding.approved",
      ]);
      expect(funded?.data).toMatchObject({ status: "approve_sent", network, spender: expect.any(String) });
      expect(approved?.data).toMatchObject({ status: "approved", network });
      await expectFundingOnChain(network, funded, raw);
      await expectApprovedOnChain(network, approved, raw);
      const settled = receiver.of(
        "payment.settled",
        (data) => String(data.payer).toLowerCase() === payer.address.toLowerCase(),
      );
      expect(settled).toHaveLength(1);
      await expectLookupRecord(service, settled[0]);
    }, 30_000);

    test("diverted: onboarding.funded, then onboarding.diverted; the payer kept the funding; no payment event", async () => {
      const { payer, raw } = await divertedFundedApprove(service.post, network);
      const [funded, diverted] = await expectOnboardingEvents(payer.address, [
        "onboarding.funded",
        "onboarding.diverted",
      ]);
      expect(funded?.data).toMatchObject({ status: "approve_sent" });
      expect(diverted?.data).toMatchObject({
        status: "diverted",
        approveCostWei: "0",
        failureReason: expect.any(String),
      });
      const data = await expectFundingOnChain(network, diverted, raw);
      expect(data.keptWei).toBe(data.fundingWei);
      // The approve was never mined: its nonce went to the payer's own transfer.
      await expect(chainOf(network).public.getTransactionReceipt({ hash: keccak256(raw) })).rejects.toThrow();
      const payments = receiver
        .unique()
        .filter(
          (event) =>
            event.type.startsWith("payment.") && String(event.data.payer).toLowerCase() === payer.address.toLowerCase(),
        );
      expect(payments).toEqual([]);
    }, 30_000);
  });
}

/** A relay402 EOA payment of `price` in TestUSDT by a token-only payer, with its signed approve of the relayer. */
async function eoaFundedPayment(network: Net, payer: { key: Hex; address: Address }, approve: { gas?: bigint } = {}) {
  const c = chainOf(network);
  const to = randomAddress();
  const body = await signedPayment({ network, key: payer.key, to, value: price, token: plainToken() });
  const raw = await signApprove(payer.key, network, { spender: c.info.relayer as Address, ...approve });
  const withApproval = { ...body, paymentPayload: { ...body.paymentPayload, approval: { signedTransaction: raw } } };
  const nonce = body.paymentPayload.payload.authorization.nonce as Hex;
  const paymentId = paymentIdOf({ chainId: c.info.chainId, contract: c.info.relayer, payer: payer.address, nonce });
  return { to, raw, withApproval, paymentId };
}

describe("bsc: the events of an EOA payment with a funded approve of the relayer", () => {
  test("paid: onboarding.funded, onboarding.approved, then payment.settled with the lookup's record", async () => {
    const network = "bsc";
    const payer = await tokenOnlyPayer(network);
    const { to, raw, withApproval, paymentId } = await eoaFundedPayment(network, payer);
    const settled = await service.post("/settle", withApproval);
    expect(settled.status).toBe(200);
    const [funded, approved] = await expectOnboardingEvents(payer.address, [
      "onboarding.funded",
      "onboarding.approved",
    ]);
    // Fanned out after the answer, when the record is `used`: each event reports its own step.
    expect([funded?.data.status, approved?.data.status]).toEqual(["approve_sent", "approved"]);
    await expectFundingOnChain(network, funded, raw);
    await expectApprovedOnChain(network, approved, raw);
    const [event] = await expectEvents(receiver, paymentId, ["payment.settled"]);
    await expectLookupRecord(service, event);
    expect(await tokenBalance(network, plainToken(), to)).toBe(price);
  }, 30_000);
});

describe("bsc: a funded approve that reverts on-chain", () => {
  test("reverted (its gas limit runs out): onboarding.funded, then onboarding.reverted with the approve's cost; no payment event", async () => {
    const network = "bsc";
    const payer = await tokenOnlyPayer(network);
    // Above the approve's intrinsic gas, so the node takes it; under what setting the allowance costs, so it reverts.
    const { to, raw, withApproval, paymentId } = await eoaFundedPayment(network, payer, { gas: 30_000n });
    const answer = await service.post("/settle", withApproval);
    expect(answer.body).toMatchObject({ code: "payment_verification_error", details: { reason: "reverted" } });
    const [funded, reverted] = await expectOnboardingEvents(payer.address, [
      "onboarding.funded",
      "onboarding.reverted",
    ]);
    expect(funded?.data.status).toBe("approve_sent");
    expect(reverted?.data).toMatchObject({ status: "reverted", failureReason: "the approve reverted" });
    const data = await expectFundingOnChain(network, reverted, raw);
    const approve = await chainOf(network).public.getTransactionReceipt({ hash: keccak256(raw) });
    expect(approve.status).toBe("reverted");
    const cost = approve.gasUsed * approve.effectiveGasPrice;
    expect(data.approveCostWei).toBe(cost.toString());
    expect(data.keptWei).toBe((BigInt(data.fundingWei) - cost).toString());
    expect(eventsOfPayment(receiver, paymentId)).toEqual([]);
    expect(await tokenBalance(network, plainToken(), to)).toBe(0n);
  }, 30_000);
});

describe("base: a funded approve the node refuses after its funding", () => {
  test("refused: onboarding.funded, then onboarding.refused; the funding went where the payer's delegate sent it; no payment event", async () => {
    const network = "base";
    const away = randomAddress();
    const payer = await delegatedPayer(network, await deployDelegate(network, forwardsTo(away)));
    const { to, raw, withApproval, paymentId } = await eoaFundedPayment(network, payer);
    const awayBefore = await chainOf(network).public.getBalance({ address: away });
    const answer = await service.post("/settle", withApproval);
    expect(answer.body).toMatchObject({ code: "payment_verification_error", details: { reason: "node_refused" } });
    const [funded, refused] = await expectOnboardingEvents(payer.address, ["onboarding.funded", "onboarding.refused"]);
    expect(funded?.data.status).toBe("approve_sent");
    expect(refused?.data).toMatchObject({ status: "refused", failureReason: expect.any(String) });
    const data = await expectFundingOnChain(network, refused, raw);
    // The delegate forwarded the whole funding on receipt; the approve was never mined.
    const forwarded = (await chainOf(network).public.getBalance({ address: away })) - awayBefore;
    expect(forwarded.toString()).toBe(data.fundingWei);
    await expect(chainOf(network).public.getTransactionReceipt({ hash: keccak256(raw) })).rejects.toThrow();
    expect(eventsOfPayment(receiver, paymentId)).toEqual([]);
    expect(await tokenBalance(network, plainToken(), to)).toBe(0n);
  }, 30_000);
});

describe("bsc: a funded approve never mined by its deadline", () => {
  test("abandoned: onboarding.funded, then onboarding.abandoned at the reconciliation past the deadline", async () => {
    const network = "bsc";
    const c = chainOf(network);
    const payer = await tokenOnlyPayer(network);
    const requirements = plainRequirements(network, price);
    const payment = await permit2Payment(payer.key, requirements);
    const raw = await signApprove(payer.key, network, { maxFeePerGas: parseGwei("2") });
    await c.test.setAutomine(false);
    try {
      const settling = slow.post("/settle", sponsoredBody(payment, requirements, raw));
      await until(
        "the funding in the pool",
        async () => (await c.public.getBalance({ address: payer.address, blockTag: "pending" })) > 0n,
      );
      await c.test.mine({ blocks: 1 });
      // The approve waits in the pool, unmined: the settle gives up and answers pending.
      expect((await settling).body).toMatchObject({ success: false, errorReason: "settlement_pending" });
      await expectOnboardingEvents(payer.address, ["onboarding.funded"]);
      // Its deadline passed (30 minutes after it was broadcast): the start's reconciliation gives it up.
      slow.db.$client
        .query("UPDATE funded_approvals SET updated_at = ? WHERE payer = ?")
        .run(new Date(Date.now() - 31 * 60_000).toISOString(), payer.address.toLowerCase());
      await slow.services.reconcile();
      const [, abandoned] = await expectOnboardingEvents(payer.address, ["onboarding.funded", "onboarding.abandoned"]);
      expect(abandoned?.data).toMatchObject({ status: "abandoned", approveCostWei: "0" });
      const data = await expectFundingOnChain(network, abandoned, raw);
      expect(data.keptWei).toBe(data.fundingWei);
    } finally {
      await c.public.request({ method: "anvil_dropAllTransactions" as never });
      await c.test.setAutomine(true);
    }
    expect(await tokenBalance(network, plainToken(), requirements.payTo as Address)).toBe(0n);
  }, 30_000);
});
