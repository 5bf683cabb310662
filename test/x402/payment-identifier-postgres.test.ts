// x402's payment-identifier across instances: two service processes (`bun src/main.ts`) on one PostgreSQL and one
// devnet, each with an executor key of its own. The same id with the same body, settled on both at once, answers the
// first result everywhere with one transaction; another body under the id is 409 on either instance.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HTTPFacilitatorClient } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devnetKeys } from "../../scripts/devnet/keys";
import { type ServiceProcess, startServiceProcess } from "../ops/service-process";
import { chainOf, tokenBalance } from "../support/chain";
import { createTestDatabase } from "../support/postgres";
import { until } from "../support/until";
import { executorNonces, freshId, settleThrough, withIdentifier } from "./payment-identifier-support";
import { baseRequirements, bscRequirements, permit2Buyer, x402Buyer } from "./support";

const dir = mkdtempSync(join(tmpdir(), "relay402-payment-identifier-"));
const instances: ServiceProcess[] = [];
const executors = devnetKeys.executors.map((key) => privateKeyToAccount(key as Hex).address);

beforeAll(async () => {
  const databaseUrl = await createTestDatabase("payment_identifier");
  // One after the other: each leases the executor key the previous one left free.
  for (let i = 0; i < 2; i++)
    instances.push(
      await startServiceProcess(dir, {
        databaseUrl,
        keyLeaseMs: 15_000,
        keyLeasesPerInstance: 1,
        logRequests: false,
        rateLimitPerMinute: 1_000_000,
      }),
    );
}, 60_000);
afterAll(async () => {
  for (const instance of instances.splice(0)) await instance.kill();
  rmSync(dir, { recursive: true, force: true });
});

const facilitators = () => instances.map((instance) => new HTTPFacilitatorClient({ url: instance.url }));

const networks = {
  base: { price: 1_250_000n, requirements: baseRequirements, buyer: () => x402Buyer() },
  bsc: { price: 2n * 10n ** 18n, requirements: bscRequirements, buyer: () => permit2Buyer() },
} as const;

for (const network of ["base", "bsc"] as const) {
  const { price, requirements: requirementsOf, buyer: buyerOf } = networks[network];
  const c = chainOf(network);
  const balanceOf = (holder: string) => tokenBalance(network, c.token.address, holder as Address);
  const settleOn = (facilitator: HTTPFacilitatorClient, payment: PaymentPayload, requirements: PaymentRequirements) =>
    settleThrough(() => facilitator.settle(payment, requirements));

  describe(`payment-identifier on two instances sharing PostgreSQL, ${network}`, () => {
    test("one body under one id settled on both instances at once: the first result on each, one transaction", async () => {
      const [first, second] = facilitators() as [HTTPFacilitatorClient, HTTPFacilitatorClient];
      const buyer = await buyerOf();
      const requirements = requirementsOf(price);
      const id = freshId();
      const payment = withIdentifier(await buyer.pay(requirements), id);
      const nonces = await executorNonces(network, executors);

      // The chain holds the transaction unmined while both instances answer: the second sees it in flight.
      await c.test.setAutomine(false);
      let answers: Awaited<ReturnType<typeof settleOn>>[];
      try {
        const settling = Promise.all(
          Array.from({ length: 6 }, (_, i) => settleOn(i % 2 === 0 ? first : second, payment, requirements)),
        );
        await until("the settlement sent", async () => (await executorNonces(network, executors)) === nonces + 1);
        await Bun.sleep(300);
        await c.test.mine({ blocks: 1 });
        await c.test.setAutomine(true);
        answers = await settling;
      } finally {
        await c.test.setAutomine(true);
      }
      for (const answer of answers) expect(answer).toMatchObject({ status: 200, body: { success: true } });
      expect(new Set(answers.map((answer) => answer.body.transaction)).size).toBe(1);
      expect(await executorNonces(network, executors)).toBe(nonces + 1);
      expect(await balanceOf(requirements.payTo)).toBe(price);

      // Later, on either instance: the same answer again, and another body under the id is 409.
      expect(await settleOn(second, payment, requirements)).toEqual(answers[0] as never);
      const other = requirementsOf(price);
      const conflicting = withIdentifier(await buyer.pay(other), id);
      for (const facilitator of [first, second])
        expect(await settleOn(facilitator, conflicting, other)).toMatchObject({
          status: 409,
          body: { success: false, errorReason: "payment_identifier_conflict" },
        });
      expect(await executorNonces(network, executors)).toBe(nonces + 1);
      expect(await balanceOf(other.payTo)).toBe(0n);
    }, 60_000);
  });
}
