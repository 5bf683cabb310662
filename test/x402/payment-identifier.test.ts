// x402's payment-identifier extension, facilitator side, through @x402/core's HTTPFacilitatorClient on the devnet:
// the same id with the same body answers the first result (success included) and sends nothing more; the same id
// with another body answers 409 with an x402 body; ids are the payer's own. The chain's balances and the executors'
// nonces judge.
import { afterAll, describe, expect, test } from "bun:test";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { Address } from "viem";
import { chainOf, tokenBalance } from "../support/chain";
import { executorNonces, freshId, settleThrough, withIdentifier } from "./payment-identifier-support";
import {
  baseRequirements,
  bscRequirements,
  listeningService,
  permit2Buyer,
  tamperedPermit,
  x402Buyer,
} from "./support";

const service = listeningService();
afterAll(() => service.stop());
const facilitator = service.facilitator();

const networks = {
  base: {
    price: 1_250_000n,
    requirements: baseRequirements,
    buyer: () => x402Buyer(),
    /** The payment with a changed amount under its old signature: a body its payer never signed. */
    forged: (payment: PaymentPayload) => {
      const { authorization, signature } = payment.payload as { authorization: { value: string }; signature: string };
      return { ...payment, payload: { signature, authorization: { ...authorization, value: "1" } } };
    },
  },
  bsc: {
    price: 2n * 10n ** 18n,
    requirements: bscRequirements,
    buyer: () => permit2Buyer(),
    forged: (payment: PaymentPayload) =>
      tamperedPermit(payment, (permit) => ({ ...permit, permitted: { ...permit.permitted, amount: "1" } })),
  },
} as const;

const executors = (network: "bsc" | "base") => service.services.networks.get(network).executor.addresses;
const balanceOf = (network: "bsc" | "base", holder: string) =>
  tokenBalance(network, chainOf(network).token.address, holder as Address);
const settle = (payment: PaymentPayload, requirements: PaymentRequirements) =>
  settleThrough(() => facilitator.settle(payment, requirements));

test("GET /supported advertises payment-identifier", async () => {
  const supported = await facilitator.getSupported();
  expect(supported.extensions).toContain("payment-identifier");
});

for (const network of ["base", "bsc"] as const) {
  const { price, requirements: requirementsOf, buyer: buyerOf, forged } = networks[network];

  describe(`payment-identifier on ${network}`, () => {
    test("the same id with the same body: the first result, success both times, one transaction", async () => {
      const buyer = await buyerOf();
      const requirements = requirementsOf(price);
      const payment = withIdentifier(await buyer.pay(requirements), freshId());
      const nonces = await executorNonces(network, executors(network));

      const first = await settle(payment, requirements);
      const again = await settle(payment, requirements);
      expect(first).toMatchObject({ status: 200, body: { success: true, payer: buyer.address } });
      expect(again).toEqual(first);
      // A merchant's verify of the retried body lets it through to the settle that answers the first result.
      expect(await facilitator.verify(payment, requirements)).toMatchObject({ isValid: true });
      expect(await executorNonces(network, executors(network))).toBe(nonces + 1);
      expect(await balanceOf(network, requirements.payTo)).toBe(price);

      // The one-success rule still holds for bodies not bound to the id: without it, or under a fresh id.
      const { extensions: _, ...plain } = payment;
      expect((await settle(plain as PaymentPayload, requirements)).body.success).toBe(false);
      expect((await settle(withIdentifier(payment, freshId()), requirements)).body.success).toBe(false);
      expect(await executorNonces(network, executors(network))).toBe(nonces + 1);
      expect(await balanceOf(network, requirements.payTo)).toBe(price);
    });

    test("the same id with another body: 409 with an x402 body, and nothing sent", async () => {
      const buyer = await buyerOf();
      const id = freshId();
      const requirements = requirementsOf(price);
      const first = await settle(withIdentifier(await buyer.pay(requirements), id), requirements);
      expect(first.body.success).toBe(true);
      const nonces = await executorNonces(network, executors(network));

      const other = requirementsOf(price);
      const conflicting = withIdentifier(await buyer.pay(other), id);
      const answer = await settle(conflicting, other);
      expect(answer).toMatchObject({
        status: 409,
        body: { success: false, errorReason: "payment_identifier_conflict", payer: buyer.address },
      });
      const verdict = await service.post("/verify", {
        x402Version: 2,
        paymentPayload: conflicting,
        paymentRequirements: other,
      });
      expect(verdict).toMatchObject({
        status: 409,
        body: { isValid: false, invalidReason: "payment_identifier_conflict" },
      });
      expect(await executorNonces(network, executors(network))).toBe(nonces);
      expect(await balanceOf(network, other.payTo)).toBe(0n);
    });

    test("concurrent settles under one id: every one answers the first result, one transaction", async () => {
      const buyer = await buyerOf();
      const requirements = requirementsOf(price);
      const payment = withIdentifier(await buyer.pay(requirements), freshId());
      const nonces = await executorNonces(network, executors(network));
      const answers = await Promise.all(Array.from({ length: 4 }, () => settle(payment, requirements)));
      for (const answer of answers) expect(answer).toMatchObject({ status: 200, body: { success: true } });
      expect(new Set(answers.map((answer) => answer.body.transaction)).size).toBe(1);
      expect(await executorNonces(network, executors(network))).toBe(nonces + 1);
      expect(await balanceOf(network, requirements.payTo)).toBe(price);
    });

    test("another payer's id is its own: it neither answers nor blocks the victim's payment under the same id", async () => {
      const [attacker, victim] = [await buyerOf(), await buyerOf()];
      const id = freshId();
      const attackerRequirements = requirementsOf(price);
      const attackerPayment = withIdentifier(await attacker.pay(attackerRequirements), id);
      expect((await settle(attackerPayment, attackerRequirements)).body.success).toBe(true);

      // A body naming the victim as payer, not signed by it, under the victim's id: refused, and binds nothing.
      const victimId = freshId();
      const requirements = requirementsOf(price);
      const genuine = await victim.pay(requirements);
      const refused = await settle(withIdentifier(forged(genuine), victimId), requirements);
      expect(refused).toMatchObject({ status: 200, body: { success: false } });

      const nonces = await executorNonces(network, executors(network));
      for (const victimsId of [id, victimId]) {
        const victimRequirements = victimsId === id ? requirementsOf(price) : requirements;
        const payment = victimsId === id ? await victim.pay(victimRequirements) : (genuine as PaymentPayload);
        const settled = await settle(withIdentifier(payment, victimsId), victimRequirements);
        expect(settled).toMatchObject({ status: 200, body: { success: true, payer: victim.address } });
        expect(await settle(withIdentifier(payment, victimsId), victimRequirements)).toEqual(settled);
        expect(await balanceOf(network, victimRequirements.payTo)).toBe(price);
      }
      expect(await executorNonces(network, executors(network))).toBe(nonces + 2);
      // The attacker's id still answers the attacker's own first result.
      expect(await settle(attackerPayment, attackerRequirements)).toMatchObject({
        status: 200,
        body: { success: true },
      });
      expect(await balanceOf(network, attackerRequirements.payTo)).toBe(price);
    });
  });
}

test("an id outside x402's format is refused before anything is sent", async () => {
  const buyer = await x402Buyer();
  const requirements = baseRequirements(networks.base.price);
  const payment = await buyer.pay(requirements);
  const nonces = await executorNonces("base", executors("base"));
  const bad = { ...payment, extensions: { "payment-identifier": { info: { required: false, id: "short" } } } };
  const answer = await settle(bad, requirements);
  expect(answer).toMatchObject({ status: 200, body: { success: false, errorReason: "invalid_payload" } });
  expect(String(answer.body.errorMessage)).toContain("16 to 128 characters");
  expect(await executorNonces("base", executors("base"))).toBe(nonces);
  expect(await balanceOf("base", requirements.payTo)).toBe(0n);
});
