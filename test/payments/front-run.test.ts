import { afterAll, describe, expect, test } from "bun:test";
import type { Hex } from "viem";
import { reconcileSettlements } from "../../src/payments/reconcile-settlements";
import { signedPayment, submitAhead } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, NETWORK_NAMES, randomAddress, tokenBalance } from "../support/chain";
import { signThenCrash, startTestService } from "../support/service";

const service = startTestService();
afterAll(() => service.stop());

type Network = (typeof NETWORK_NAMES)[number];
const unit = (network: Network) => 10n ** BigInt(chainOf(network).token.decimals);

/**
 * The payer signs two authorizations with one nonce: A pays the merchant 100 tokens, B pays an accomplice
 * 1 wei. A is what the service is asked to settle; B is what the payer submits directly to front-run it.
 */
async function twoAuthorizationsOneNonce(network: Network) {
  const payer = await freshPayer(network);
  await approveRelayer(network, payer.key, 1000n * unit(network));
  const merchant = randomAddress();
  const accomplice = randomAddress();
  const a = await signedPayment({ network, key: payer.key, to: merchant, value: 100n * unit(network) });
  const nonce = a.paymentPayload.payload.authorization.nonce as Hex;
  const b = await signedPayment({ network, key: payer.key, to: accomplice, value: 1n, nonce });
  return { payer, merchant, accomplice, a, b };
}

for (const network of NETWORK_NAMES) {
  describe(`${network}: a different authorization with the same nonce`, () => {
    test("front-running /settle is a stored nonce_error, never a success; the merchant's balance is the judge", async () => {
      const c = chainOf(network);
      const { payer, merchant, accomplice, a, b } = await twoAuthorizationsOneNonce(network);
      await c.test.setAutomine(false);
      let settled: Awaited<ReturnType<typeof service.post>>;
      try {
        const settling = service.post("/settle", a);
        // Wait until the service's transaction is signed and recorded (it is then broadcast).
        const key = { network, payer: payer.address, nonce: a.paymentPayload.payload.authorization.nonce };
        for (let i = 0; i < 100 && service.store.find(key)?.status !== "sent"; i++) await Bun.sleep(50);
        expect(service.store.find(key)?.status).toBe("sent");
        await Bun.sleep(200);
        await submitAhead(payer.key, b);
        await c.test.mine({ blocks: 1 });
        settled = await settling;
      } finally {
        await c.test.setAutomine(true);
      }
      expect(settled.status).toBe(400);
      expect(settled.body.code).toBe("nonce_error");
      expect(await tokenBalance(network, c.token.address, merchant)).toBe(0n);
      expect(await tokenBalance(network, c.token.address, accomplice)).toBe(1n);
      const again = await service.post("/settle", a);
      expect(again.status).toBe(400);
      expect(again.body.code).toBe("nonce_error");
    });

    test("after a restart: a signed settlement whose nonce was taken by another authorization is a nonce_error", async () => {
      const c = chainOf(network);
      const { merchant, payer, a, b } = await twoAuthorizationsOneNonce(network);
      const first = startTestService();
      const { authorization } = await signThenCrash(first, network, a);
      await c.public.waitForTransactionReceipt({ hash: await submitAhead(payer.key, b) });

      const restarted = startTestService({ databasePath: first.databasePath });
      try {
        await reconcileSettlements(restarted.services);
        const after = restarted.store.find({ network, payer: authorization.from, nonce: authorization.nonce });
        expect(after?.status).toBe("rejected");
        const replay = await restarted.post("/settle", a);
        expect(replay.status).toBe(400);
        expect(replay.body.code).toBe("nonce_error");
        expect(await tokenBalance(network, c.token.address, merchant)).toBe(0n);
      } finally {
        restarted.stop();
      }
    });
  });
}

test("a signed settlement whose executor nonce went to another transaction after a restart settles again, not pending for ever", async () => {
  const network = "bsc";
  const c = chainOf(network);
  const payer = await freshPayer(network);
  await approveRelayer(network, payer.key, 1000n * unit(network));
  const merchant = randomAddress();
  const body = await signedPayment({ network, key: payer.key, to: merchant, value: unit(network) });
  const first = startTestService();
  const { prepared } = await signThenCrash(first, network, body);

  const restarted = startTestService({ databasePath: first.databasePath });
  try {
    // The restarted process hands the same executor nonce to another transaction, which is mined.
    const restartedRuntime = restarted.services.networks.get(network);
    const other = await restartedRuntime.executor.execute({ to: prepared.from, data: "0x", gas: 21_000n });
    expect(other.prepared.from).toBe(prepared.from);
    expect(other.prepared.nonce).toBe(prepared.nonce);
    const settled = await restarted.post("/settle", body);
    expect(settled.status).toBe(200);
    expect(settled.body.transaction).not.toBe(prepared.hash);
    expect(await tokenBalance(network, c.token.address, merchant)).toBe(unit(network));
  } finally {
    restarted.stop();
  }
});

test("an authorization valid from now settles on a chain that has been idle (the simulation runs at the time of the next block)", async () => {
  const network = "base";
  const c = chainOf(network);
  const payer = await freshPayer(network);
  await approveRelayer(network, payer.key, 1000n * unit(network));
  const merchant = randomAddress();
  // No block for a while: the latest block's time falls behind the clock.
  await Bun.sleep(3_000);
  const now = Math.floor(Date.now() / 1000);
  const body = await signedPayment({ network, key: payer.key, to: merchant, value: unit(network), validAfter: now });
  const settled = await service.post("/settle", body);
  expect(settled.status).toBe(200);
  expect(await tokenBalance(network, c.token.address, merchant)).toBe(unit(network));
});
