// Every EOA settle answer names its payment (paymentIdOf of the signed body), and a payment in flight answers 202
// with Retry-After and Location, never a 5xx: a settle whose receipt is late, concurrent duplicates of it, and the
// client, which follows the 202 to the final result. The chain judges: balances and the executors' nonces.
import { afterAll, describe, expect, test } from "bun:test";
import { createRelay402Client } from "@relay402/client";
import { paymentIdOf } from "@relay402/client/wire/payment-id";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { plainToken, signApprove, tokenOnlyPayer } from "../onboarding/funded-approve-support";
import { readyPayment, signedPayment } from "../support/authorization";
import { chainOf, NETWORK_NAMES, randomAddress, tokenBalance } from "../support/chain";
import { startTestService } from "../support/service";
import { until } from "../support/until";

type Network = (typeof NETWORK_NAMES)[number];
type Service = ReturnType<typeof startTestService>;

const services: Service[] = [];
afterAll(() => {
  for (const service of services) service.stop();
});

const unit = (network: Network) => 10n ** BigInt(chainOf(network).token.decimals);

/** Every transaction the service's executors ever sent on `network` (their nonces, pending ones included). */
async function sentBy(service: Service, network: Network): Promise<number> {
  const keys = service.config.networks[network]?.executorKeys ?? [];
  const counts = await Promise.all(
    keys.map((key) =>
      chainOf(network).public.getTransactionCount({
        address: privateKeyToAccount(key as Hex).address as Address,
        blockTag: "pending",
      }),
    ),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

/** A service whose receipt wait on `network` gives up after 1.5 s, so a settle on a stalled chain answers pending. */
function impatientService(network: Network): Service {
  const service = startTestService({}, (config) => {
    const settings = config.networks[network];
    if (settings) Object.assign(settings, { receiptTimeoutMs: 1500, replaceAfterMs: 60_000 });
  });
  services.push(service);
  return service;
}

const service = startTestService();
services.push(service);

for (const network of NETWORK_NAMES) {
  describe(`${network}: the payment id of an EOA settle`, () => {
    test("a success carries paymentIdOf(chain id, relayer, payer, nonce), the same on a repeat", async () => {
      const { payer, to, body, paymentId } = await readyPayment(network, 2n * unit(network));
      const settled = await service.post("/settle", body);
      expect(settled.status).toBe(200);
      expect(settled.body).toMatchObject({ success: true, paymentId, network, payer: payer.address });
      const again = await service.post("/settle", body);
      expect(again.status).toBe(200);
      expect(again.body.paymentId).toBe(paymentId);
      expect(again.body.transaction).toBe(settled.body.transaction);
      expect(await tokenBalance(network, chainOf(network).token.address, to)).toBe(2n * unit(network));
    });

    test("an error once the payment was recorded names it in details.paymentId", async () => {
      const { payer, body, paymentId } = await readyPayment(network, unit(network));
      expect((await service.post("/settle", body)).status).toBe(200);
      // The same nonce signed again for someone else: the record of the first payment answers.
      const other = await signedPayment({
        network,
        key: payer.key,
        to: randomAddress(),
        value: unit(network),
        nonce: body.paymentPayload.payload.authorization.nonce as Hex,
      });
      const refused = await service.post("/settle", other);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: "nonce_error", details: { paymentId } });
    });

    test("a settle with no receipt in time answers 202 with Retry-After and Location; so do its concurrent duplicates; exactly one transaction", async () => {
      const c = chainOf(network);
      const slow = impatientService(network);
      const { payer, to, body, paymentId } = await readyPayment(network, 3n * unit(network));
      const sentBefore = await sentBy(slow, network);
      await c.test.setAutomine(false);
      let answers: Awaited<ReturnType<Service["post"]>>[];
      try {
        // Five at once: they share one settle in this process, or find it claimed; none may be a 5xx.
        answers = await Promise.all(Array.from({ length: 5 }, () => slow.post("/settle", body)));
        const late = await slow.post("/settle", body);
        answers.push(late);
        for (const answer of answers) {
          expect(answer.status).toBe(202);
          expect(answer.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
          expect(answer.headers.get("location")).toBe(`/payments/${paymentId}`);
          expect(answer.body).toMatchObject({
            success: false,
            status: "pending",
            paymentId,
            network,
            payer: payer.address,
          });
        }
        expect(answers[0]?.body.transaction).toMatch(/^0x[0-9a-f]{64}$/);
        await c.test.mine({ blocks: 1 });
      } finally {
        await c.test.setAutomine(true);
      }
      const done = await slow.post("/settle", body);
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({ success: true, paymentId, transaction: answers[0]?.body.transaction });
      // The 202's Location is the payment's record in the lookup, which now says what the chain says.
      const located = await slow.get(answers[0]?.headers.get("location") as string);
      expect(located.status).toBe(200);
      expect(located.body).toMatchObject({ paymentId, status: "settled", transaction: done.body.transaction });
      expect(await sentBy(slow, network)).toBe(sentBefore + 1);
      expect(await tokenBalance(network, c.token.address, to)).toBe(3n * unit(network));
    });

    test("concurrent duplicates on a live chain answer the one transaction, never a 5xx", async () => {
      const c = chainOf(network);
      const { to, body, paymentId } = await readyPayment(network, unit(network));
      const sentBefore = await sentBy(service, network);
      const answers = await Promise.all(Array.from({ length: 6 }, () => service.post("/settle", body)));
      for (const answer of answers) expect([200, 202]).toContain(answer.status);
      const settled = answers.filter((answer) => answer.status === 200);
      expect(settled.length).toBeGreaterThanOrEqual(1);
      expect(new Set(answers.map((answer) => answer.body.paymentId))).toEqual(new Set([paymentId]));
      expect(new Set(settled.map((answer) => answer.body.transaction)).size).toBe(1);
      const final = await service.post("/settle", body);
      expect(final.body.transaction).toBe(settled[0]?.body.transaction);
      expect(await sentBy(service, network)).toBe(sentBefore + 1);
      expect(await tokenBalance(network, c.token.address, to)).toBe(unit(network));
    });
  });
}

describe("the client follows a 202", () => {
  test("createRelay402Client settles again after Retry-After and returns the final result", async () => {
    const network = "bsc";
    const c = chainOf(network);
    const slow = impatientService(network);
    const { to, body, paymentId } = await readyPayment(network, unit(network));
    const seen: number[] = [];
    const client = createRelay402Client({
      url: "http://relay402.test",
      retryDelayMs: 60_000,
      fetch: (async (input: string, init?: RequestInit) => {
        const answer = await slow.app.handle(new Request(input, init));
        seen.push(answer.status);
        // The chain moves on once the service has said "pending": the next settle finds the receipt.
        if (answer.status === 202) await c.test.mine({ blocks: 1 }).then(() => c.test.setAutomine(true));
        return answer;
      }) as typeof fetch,
    });
    await c.test.setAutomine(false);
    let result: { success: boolean; paymentId: string; transaction: string };
    try {
      result = await client.post("/settle", body, { idempotent: true });
    } finally {
      await c.test.setAutomine(true);
    }
    expect(seen).toEqual([202, 200]);
    expect(result).toMatchObject({ success: true, paymentId });
    const receipt = await c.public.getTransactionReceipt({ hash: result.transaction as Hex });
    expect(receipt.status).toBe("success");
    expect(await tokenBalance(network, c.token.address, to)).toBe(unit(network));
  });
});

describe("a funded approve in flight", () => {
  test("bsc: the payment's settle answers 202 under the payment's id while its funding or approve is unmined, then settles once", async () => {
    const network = "bsc";
    const c = chainOf(network);
    const slow = impatientService(network);
    const payer = await tokenOnlyPayer(network);
    const to = randomAddress();
    const body = await signedPayment({ network, key: payer.key, to, value: unit(network), token: plainToken() });
    const raw = await signApprove(payer.key, network, { spender: c.info.relayer });
    const withApproval = { ...body, paymentPayload: { ...body.paymentPayload, approval: { signedTransaction: raw } } };
    const paymentId = paymentIdOf({
      chainId: c.info.chainId,
      contract: c.info.relayer,
      payer: payer.address,
      nonce: body.paymentPayload.payload.authorization.nonce as Hex,
    });
    const sentBefore = await sentBy(slow, network);
    await c.test.setAutomine(false);
    let pending: Awaited<ReturnType<Service["post"]>>;
    try {
      pending = await slow.post("/settle", withApproval);
      await c.test.mine({ blocks: 1 });
    } finally {
      await c.test.setAutomine(true);
    }
    expect(pending.status).toBe(202);
    expect(pending.body).toMatchObject({ success: false, status: "pending", paymentId, network, payer: payer.address });
    expect(pending.headers.get("location")).toBe(`/payments/${paymentId}`);
    let settled: Awaited<ReturnType<Service["post"]>> | undefined;
    await until("the settle to finish", async () => {
      const answer = await slow.post("/settle", withApproval);
      expect([200, 202]).toContain(answer.status);
      if (answer.status === 200) settled = answer;
      return settled !== undefined;
    });
    expect(settled?.body).toMatchObject({ success: true, paymentId });
    // One funding and one settlement transaction from the executors; the payee paid once.
    expect(await sentBy(slow, network)).toBe(sentBefore + 2);
    expect(await tokenBalance(network, plainToken(), to)).toBe(unit(network));
  });
});
