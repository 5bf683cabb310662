import { afterAll, describe, expect, test } from "bun:test";
import { erc20Abi, relayerAbi } from "@relay402/client/wire/abis";
import { getAddress, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { reconcileSettlements } from "../../src/payments/reconcile-settlements";
import { parseAuthorization } from "../../src/settlement/authorization";
import { eoaPaymentId } from "../../src/settlement/settle-payment";
import { settlementOf } from "../../src/settlement/settlement-store";
import { signedPayment, submitAhead } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, NETWORK_NAMES, randomAddress, tokenBalance } from "../support/chain";
import { signThenCrash, signUnsent, startTestService } from "../support/service";

const service = startTestService();
afterAll(() => service.stop());

const unit = (network: (typeof NETWORK_NAMES)[number]) => 10n ** BigInt(chainOf(network).token.decimals);

async function readyPayment(network: (typeof NETWORK_NAMES)[number], value: bigint) {
  const payer = await freshPayer(network);
  await approveRelayer(network, payer.key, 1000n * unit(network));
  const to = randomAddress();
  return { payer, to, body: await signedPayment({ network, key: payer.key, to, value }) };
}

for (const network of NETWORK_NAMES) {
  describe(`${network}: POST /settle`, () => {
    test("moves the tokens and reports the transaction", async () => {
      const c = chainOf(network);
      const value = 7n * unit(network);
      const { payer, to, body } = await readyPayment(network, value);
      const before = await tokenBalance(network, c.token.address, payer.address);
      const response = await service.post("/settle", body);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        success: true,
        network,
        payer: payer.address,
        payment: { to: getAddress(to), amount: value.toString(), token: c.token.address },
      });
      const receipt = await c.public.getTransactionReceipt({ hash: response.body.transaction });
      expect(receipt.status).toBe("success");
      expect(Number(receipt.blockNumber)).toBe(response.body.blockNumber);
      expect(receipt.to?.toLowerCase()).toBe(c.info.relayer.toLowerCase());
      expect(await tokenBalance(network, c.token.address, to)).toBe(value);
      expect(await tokenBalance(network, c.token.address, payer.address)).toBe(before - value);
      expect(
        await c.public.readContract({
          address: c.info.relayer,
          abi: relayerAbi,
          functionName: "authorizationState",
          args: [payer.address, body.paymentPayload.payload.authorization.nonce as Hex],
        }),
      ).toBe(true);
    });

    test("an invalid payment is refused with the failed check's code and nothing is sent", async () => {
      const payer = await freshPayer(network);
      const body = await signedPayment({ network, key: payer.key, to: randomAddress(), value: unit(network) });
      const response = await service.post("/settle", body);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        code: "payment_verification_error",
        message: expect.stringMatching(/^allowance too low: /),
        details: { spender: chainOf(network).info.relayer, allowance: "0", needed: unit(network).toString() },
      });
      expect(
        service.store.find({
          network,
          payer: payer.address,
          nonce: body.paymentPayload.payload.authorization.nonce,
        }),
      ).toBeUndefined();
      const expired = await signedPayment({
        network,
        key: payer.key,
        to: randomAddress(),
        value: 1n,
        validAfter: 1,
        validBefore: 2,
      });
      expect((await service.post("/settle", expired)).body.code).toBe("payment_verification_error");
    });

    test("the same authorization settled twice gives one transaction", async () => {
      const c = chainOf(network);
      const value = unit(network);
      const { payer, to, body } = await readyPayment(network, value);
      const first = await service.post("/settle", body);
      const second = await service.post("/settle", body);
      expect(first.status).toBe(200);
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      expect(await tokenBalance(network, c.token.address, to)).toBe(value);
      expect(await tokenBalance(network, c.token.address, payer.address)).toBe(1000n * unit(network) - value);
    });

    test("10 concurrent settles of one authorization give one transaction", async () => {
      const c = chainOf(network);
      const value = unit(network);
      const { to, body } = await readyPayment(network, value);
      const responses = await Promise.all(Array.from({ length: 10 }, () => service.post("/settle", body)));
      expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
      expect(new Set(responses.map((r) => r.body.transaction)).size).toBe(1);
      expect(await tokenBalance(network, c.token.address, to)).toBe(value);
    });

    test("two authorizations with one nonce settled at the same time: one settles, the other is a nonce_error", async () => {
      const c = chainOf(network);
      const payer = await freshPayer(network);
      await approveRelayer(network, payer.key, 1000n * unit(network));
      const merchant = randomAddress();
      const nonce = (await signedPayment({ network, key: payer.key, to: merchant, value: 1n })).paymentPayload.payload
        .authorization.nonce as Hex;
      const toSelf = await signedPayment({ network, key: payer.key, to: payer.address, value: 1n, nonce });
      const toMerchant = await signedPayment({
        network,
        key: payer.key,
        to: merchant,
        value: 100n * unit(network),
        nonce,
      });
      const [a, b] = await Promise.all([service.post("/settle", toSelf), service.post("/settle", toMerchant)]);
      const winner = a.status === 200 ? a : b;
      const loser = a.status === 200 ? b : a;
      expect(winner.status).toBe(200);
      expect(loser.status).toBe(400);
      expect(loser.body.code).toBe("nonce_error");
      const paidMerchant = winner === b;
      expect(await tokenBalance(network, c.token.address, merchant)).toBe(paidMerchant ? 100n * unit(network) : 0n);
    });

    test("a different authorization reusing a settled nonce is a nonce_error", async () => {
      const { payer, body } = await readyPayment(network, unit(network));
      expect((await service.post("/settle", body)).status).toBe(200);
      const reuse = await signedPayment({
        network,
        key: payer.key,
        to: randomAddress(),
        value: 2n,
        nonce: body.paymentPayload.payload.authorization.nonce as Hex,
      });
      const response = await service.post("/settle", reuse);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe("nonce_error");
    });
  });
}

describe("settlement under load and faults", () => {
  test("50 different payments settled concurrently all succeed with no nonce error", async () => {
    const network = "bsc";
    const payments = await Promise.all(Array.from({ length: 50 }, () => readyPayment(network, unit(network))));
    const responses = await Promise.all(payments.map((p) => service.post("/settle", p.body)));
    const failures = responses.filter((r) => r.status !== 200).map((r) => r.body);
    expect(failures).toEqual([]);
    expect(new Set(responses.map((r) => r.body.transaction)).size).toBe(50);
    for (const p of payments.slice(0, 5))
      expect(await tokenBalance(network, chainOf(network).token.address, p.to)).toBe(unit(network));
  });

  /**
   * A real on-chain revert caused by the payer: it holds enough for one payment, and two are settled into the
   * same block (both pass simulation before it is mined), so the second one reverts.
   */
  async function oneOfTwoReverts(on: ReturnType<typeof startTestService>) {
    const network = "bsc";
    const c = chainOf(network);
    const value = 10n * unit(network);
    const payer = await freshPayer(network, { tokens: value });
    await approveRelayer(network, payer.key, 2n * value);
    const first = await signedPayment({ network, key: payer.key, to: randomAddress(), value });
    const second = await signedPayment({ network, key: payer.key, to: randomAddress(), value });
    await c.test.setAutomine(false);
    let responses: Awaited<ReturnType<typeof service.post>>[];
    try {
      const settling = Promise.all([on.post("/settle", first), on.post("/settle", second)]);
      await Bun.sleep(500);
      await c.test.mine({ blocks: 1 });
      responses = await settling;
    } finally {
      await c.test.setAutomine(true);
    }
    const revertedBody = responses[0]?.status === 500 ? first : second;
    return { payer, responses, revertedBody };
  }

  test("an on-chain revert is a payment_settlement_error, and settling it again returns the same answer", async () => {
    const c = chainOf("bsc");
    const { responses, revertedBody } = await oneOfTwoReverts(service);
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 500]);
    const reverted = responses.find((r) => r.status === 500);
    expect(reverted?.body.code).toBe("payment_settlement_error");
    const receipt = await c.public.getTransactionReceipt({ hash: reverted?.body.details.transaction });
    expect(receipt.status).toBe("reverted");
    const again = await service.post("/settle", revertedBody);
    expect(again.status).toBe(500);
    expect(again.body.details.transaction).toBe(reverted?.body.details.transaction);
  });

  test("a payer whose settlements revert on-chain is refused at /verify and /settle once it reaches denyAfterReverts", async () => {
    const strict = startTestService({ denyAfterReverts: 1 });
    try {
      const { payer, responses } = await oneOfTwoReverts(strict);
      expect(responses.map((r) => r.status).sort()).toEqual([200, 500]);
      // Funded and approved again: only the deny rule can refuse the next payment.
      const c = chainOf("bsc");
      await c.public.waitForTransactionReceipt({
        hash: await c.walletFor(payer.key).writeContract({
          address: c.token.address,
          abi: erc20Abi,
          functionName: "mint",
          args: [payer.address, unit("bsc")],
        }),
      });
      await approveRelayer("bsc", payer.key, 1000n * unit("bsc"));
      const next = await signedPayment({ network: "bsc", key: payer.key, to: randomAddress(), value: 1n });
      const verified = await strict.post("/verify", next);
      expect(verified.body).toMatchObject({
        isValid: false,
        invalidReason: "payment_verification_error",
        invalidMessage: "payer refused after repeated failed settlements",
      });
      const settled = await strict.post("/settle", next);
      expect(settled.status).toBe(400);
      expect(settled.body.code).toBe("payment_verification_error");
    } finally {
      strict.stop();
    }
  });

  test("an authorization someone else executes first is reported as settled by their transaction", async () => {
    const network = "base";
    const c = chainOf(network);
    const { to, body } = await readyPayment(network, unit(network));
    const outsider = await freshPayer(network, { tokens: 0n });
    await c.test.setAutomine(false);
    let settled: Awaited<ReturnType<typeof service.post>>;
    let theirs: Hex;
    try {
      const settling = service.post("/settle", body);
      await Bun.sleep(500);
      // Same signed authorization, a higher tip: it is mined ahead of the service's transaction.
      theirs = await submitAhead(outsider.key, body);
      await c.test.mine({ blocks: 1 });
      settled = await settling;
    } finally {
      await c.test.setAutomine(true);
    }
    expect(settled.status).toBe(200);
    expect(settled.body.transaction).toBe(theirs);
    expect(await tokenBalance(network, c.token.address, to)).toBe(unit(network));
    const again = await service.post("/settle", body);
    expect(again.body.transaction).toBe(theirs);
  });

  test("an RPC that is down fails over to the second URL", async () => {
    const c = chainOf("base");
    const failover = startTestService({}, (config) => {
      // Port 9 (discard) refuses connections: every call must fall over to the live URL.
      if (config.networks.base) config.networks.base.rpcUrls = ["http://127.0.0.1:9", c.info.rpcUrl];
    });
    try {
      const { to, body } = await readyPayment("base", unit("base"));
      expect((await failover.post("/verify", body)).body.isValid).toBe(true);
      const response = await failover.post("/settle", body);
      expect(response.status).toBe(200);
      expect(await tokenBalance("base", c.token.address, to)).toBe(unit("base"));
    } finally {
      failover.stop();
    }
  });

  test("a transaction the node refuses is not left pending: the payment can be settled once the executor is funded", async () => {
    const network = "bsc";
    const c = chainOf(network);
    const broke = generatePrivateKey();
    const poor = startTestService({}, (config) => {
      if (config.networks.bsc) config.networks.bsc.executorKeys = [broke];
    });
    try {
      const { to, body } = await readyPayment(network, unit(network));
      const refused = await poor.post("/settle", body);
      expect(refused.status).toBe(500);
      expect(refused.body.code).toBe("blockchain_error");
      expect(refused.body.details.status).toBeUndefined();
      await c.test.setBalance({ address: privateKeyToAccount(broke).address, value: 10n ** 18n });
      const settled = await poor.post("/settle", body);
      expect(settled.status).toBe(200);
      expect(await tokenBalance(network, c.token.address, to)).toBe(unit(network));
    } finally {
      poor.stop();
    }
  });

  test("a transaction with no receipt in time is reported pending, and a later settle returns its result", async () => {
    const network = "base";
    const c = chainOf(network);
    const slow = startTestService({}, (config) => {
      if (config.networks.base) Object.assign(config.networks.base, { receiptTimeoutMs: 1500, replaceAfterMs: 60_000 });
    });
    const { to, body } = await readyPayment(network, unit(network));
    await c.test.setAutomine(false);
    try {
      const pending = await slow.post("/settle", body);
      expect(pending.status).toBe(202);
      expect(pending.body.status).toBe("pending");
      expect(pending.body.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      await c.test.mine({ blocks: 1 });
      const done = await slow.post("/settle", body);
      expect(done.status).toBe(200);
      expect(done.body.transaction).toBe(pending.body.transaction);
      expect(await tokenBalance(network, c.token.address, to)).toBe(unit(network));
    } finally {
      await c.test.setAutomine(true);
      slow.stop();
    }
  });

  test("a crash after signing loses nothing: the restarted service re-broadcasts and finishes the record", async () => {
    const network = "bsc";
    const c = chainOf(network);
    const first = startTestService();
    const { to, body } = await readyPayment(network, unit(network));
    const { authorization, prepared } = await signThenCrash(first, network, body);

    const restarted = startTestService({ databasePath: first.databasePath });
    try {
      await reconcileSettlements(restarted.services);
      const after = restarted.store.find({ network, payer: authorization.from, nonce: authorization.nonce });
      expect(after?.status).toBe("success");
      expect(after?.txHash).toBe(prepared.hash);
      expect(await tokenBalance(network, c.token.address, to)).toBe(unit(network));
      const replay = await restarted.post("/settle", body);
      expect(replay.status).toBe(200);
      expect(replay.body.transaction).toBe(prepared.hash);
    } finally {
      restarted.stop();
    }
  });

  test("a crash after signing two settlements whose record ids run against their nonces: the restart finishes both", async () => {
    const network = "bsc";
    const c = chainOf(network);
    // One executor key, so both transactions are that key's, at consecutive nonces.
    const first = startTestService({}, (config) => {
      config.networks[network]!.executorKeys.splice(1);
    });
    const [a, b] = [await readyPayment(network, unit(network)), await readyPayment(network, 2n * unit(network))];
    // b claims its record first, a signs first: what two concurrent settles do when b's simulation is the slower.
    const authorizationB = parseAuthorization(b.body.paymentPayload);
    const idOfB = eoaPaymentId(first.services.networks.get(network), authorizationB.from, authorizationB.nonce);
    const claimedB = first.store.claim(settlementOf(network, authorizationB, idOfB)).record;
    const signedA = await signUnsent(first, network, a.body);
    const signedB = await signUnsent(first, network, b.body, claimedB);
    first.stop();
    expect(signedB.recordId).toBeLessThan(signedA.recordId);
    expect(signedB.prepared.nonce).toBe(signedA.prepared.nonce + 1);

    // A receipt timeout short enough that resuming b before a (its nonce still unused) would leave b unconfirmed.
    const restarted = startTestService({ databasePath: first.databasePath }, (config) => {
      config.networks[network]!.receiptTimeoutMs = 1_500;
    });
    try {
      await reconcileSettlements(restarted.services);
      for (const [ready, signed] of [
        [a, signedA],
        [b, signedB],
      ] as const) {
        const record = restarted.store.find({ network, payer: ready.payer.address, nonce: signed.authorization.nonce });
        expect([record?.status, record?.txHash]).toEqual(["success", signed.prepared.hash]);
      }
      expect(await tokenBalance(network, c.token.address, a.to)).toBe(unit(network));
      expect(await tokenBalance(network, c.token.address, b.to)).toBe(2n * unit(network));
    } finally {
      restarted.stop();
    }
  });

  test("a crash before signing releases the record so the payment can be settled", async () => {
    const network = "bsc";
    const first = startTestService();
    const { body } = await readyPayment(network, unit(network));
    const authorization = parseAuthorization(body.paymentPayload);
    const paymentId = eoaPaymentId(first.services.networks.get(network), authorization.from, authorization.nonce);
    first.store.claim(settlementOf(network, authorization, paymentId));
    first.stop();
    const restarted = startTestService({ databasePath: first.databasePath });
    try {
      await reconcileSettlements(restarted.services);
      expect(restarted.store.find({ network, payer: authorization.from, nonce: authorization.nonce })).toBeUndefined();
      expect((await restarted.post("/settle", body)).status).toBe(200);
    } finally {
      restarted.stop();
    }
  });
});
