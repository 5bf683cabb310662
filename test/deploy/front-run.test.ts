import { afterAll, describe, expect, test } from "bun:test";
import type { Address, Hex } from "viem";
import { signedPayment, submitAhead } from "../support/authorization";
import { chainOf, NETWORK_NAMES, randomAddress, tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";
import { adminHeaders, eoaDeployment, inMempool, randomSalt, type Service, waitFor } from "./support";

const tracked = trackServices();
afterAll(async () => {
  for (const network of NETWORK_NAMES) await chainOf(network).test.setAutomine(true);
  tracked.stopAll();
});

type Network = (typeof NETWORK_NAMES)[number];
type Payload = { payload: { authorization: { nonce: string; from: string } } };

/** A payload of the batch re-signed with the same nonce to pay an accomplice 1 wei: what the payer front-runs with. */
const sameNonceOtherPayment = (network: Network, key: Hex, payload: Payload, accomplice: Address) =>
  signedPayment({ network, key, to: accomplice, value: 1n, nonce: payload.payload.authorization.nonce as Hex });

/** True once the transaction of this fee authorization is recorded as sent and the node holds it. */
const feeSent = (service: Service, network: Network, payload: Payload) => async () => {
  const record = service.store.find({
    network,
    payer: payload.payload.authorization.from,
    nonce: payload.payload.authorization.nonce,
  });
  return record?.status === "sent" && (await inMempool(network, record.txHash as Hex));
};

/** True once a step's transaction of the payer's batch is recorded as sent and the node holds it. */
const stepSent = (service: Service, network: Network, payer: Address, phase: "deployment" | "funding") => async () => {
  const batch = (await service.services.deployments.store.batchesFor({ payer }))[0];
  const rows = batch ? await service.services.deployments.store.walletsOf(batch.id) : [];
  const row = rows.find((r) => (phase === "deployment" ? r.deploymentStatus : r.fundingStatus) === "sent");
  return (
    !!row && (await inMempool(network, (phase === "deployment" ? row.deploymentTxHash : row.fundingTxHash) as Hex))
  );
};

/** The settle body of a batch: what the client signed plus the wallets /deploy/verify answered. */
const settleBody = async (service: Service, body: object) => ({
  ...body,
  wallets: (await service.post("/deploy/verify", body, adminHeaders(service))).body.wallets,
});

const hasCode = async (network: Network, address: Address) =>
  ((await chainOf(network).public.getCode({ address })) ?? "0x").length > 2;

for (const network of NETWORK_NAMES) {
  const c = chainOf(network);
  const unit = 10n ** BigInt(c.token.decimals);

  describe(`${network}: deployment payments front-run by a different authorization with the same nonce`, () => {
    test("the fee: 400 nonce_error, stored, no wallet deployed; the fee recipient's balance is the judge", async () => {
      const service = tracked.start();
      const flow = await eoaDeployment(service, { network, salts: [randomSalt()] });
      const accomplice = randomAddress();
      const fee = flow.body.paymentPayload[0] as Payload;
      const b = await sameNonceOtherPayment(network, flow.payer.key, fee, accomplice);
      const recipientBefore = await tokenBalance(network, c.token.address, c.info.feeRecipient);
      await c.test.setAutomine(false);
      let settled: Awaited<ReturnType<Service["post"]>>;
      try {
        const settling = service.post("/deploy/settle", await settleBody(service, flow.body), adminHeaders(service));
        await waitFor(feeSent(service, network, fee));
        await submitAhead(flow.payer.key, b);
        await c.test.mine({ blocks: 1 });
        settled = await settling;
      } finally {
        await c.test.setAutomine(true);
      }
      expect(settled.status).toBe(400);
      expect(settled.body.code).toBe("nonce_error");
      expect(await tokenBalance(network, c.token.address, c.info.feeRecipient)).toBe(recipientBefore);
      expect(await tokenBalance(network, c.token.address, accomplice)).toBe(1n);
      expect(await hasCode(network, flow.wallets[0]?.address as Address)).toBe(false);
      const again = await service.post("/deploy/settle", await settleBody(service, flow.body), adminHeaders(service));
      expect(again.status).toBe(400);
      expect(again.body.code).toBe("nonce_error");
      expect(await hasCode(network, flow.wallets[0]?.address as Address)).toBe(false);
    }, 60_000);

    test("a funding: its wallet is in failedFundings with the reason, and claim does not retry it", async () => {
      const service = tracked.start();
      const flow = await eoaDeployment(service, {
        network,
        salts: [randomSalt(), randomSalt()],
        funding: [unit, unit],
      });
      const accomplice = randomAddress();
      const funding = flow.body.paymentPayload[1] as Payload;
      const b = await sameNonceOtherPayment(network, flow.payer.key, funding, accomplice);
      await c.test.setAutomine(false);
      let settled: Awaited<ReturnType<Service["post"]>>;
      try {
        const settling = service.post("/deploy/settle", await settleBody(service, flow.body), adminHeaders(service));
        await waitFor(feeSent(service, network, flow.body.paymentPayload[0] as Payload));
        await c.test.mine({ blocks: 1 });
        await waitFor(stepSent(service, network, flow.payer.address, "deployment"));
        // The payer uses the first funding's nonce for something else while the wallets are being deployed.
        await submitAhead(flow.payer.key, b);
        await c.test.mine({ blocks: 1 });
        await waitFor(stepSent(service, network, flow.payer.address, "funding"));
        await c.test.mine({ blocks: 1 });
        settled = await settling;
      } finally {
        await c.test.setAutomine(true);
      }
      const first = flow.wallets[0]?.address as Address;
      const second = flow.wallets[1]?.address as Address;
      expect(settled.status).toBe(200);
      expect(settled.body.failedFundings).toEqual([first]);
      expect(await tokenBalance(network, c.token.address, first)).toBe(0n);
      expect(await tokenBalance(network, c.token.address, second)).toBe(unit);
      expect(await tokenBalance(network, c.token.address, accomplice)).toBe(1n);
      const records = service.services.deployments.store;
      const batch = (await records.batchesFor({ payer: flow.payer.address }))[0];
      const row = (await records.walletsOf(batch?.id ?? -1)).find(
        (r) => r.walletAddress.toLowerCase() === first.toLowerCase(),
      );
      expect(row?.fundingStatus).toBe("abandoned");
      expect(row?.fundingError).toBe("nonce used by a different authorization");

      // Nothing is left to retry: the claim sends nothing.
      const nonceBefore = await c.public.getTransactionCount({ address: c.info.relayer });
      const claim = await service.post("/wallet/claim", { payerAddress: flow.payer.address });
      expect(claim.status).not.toBe(200);
      expect(await tokenBalance(network, c.token.address, first)).toBe(0n);
      expect(row?.fundingError).toBe("nonce used by a different authorization");
      expect(await c.public.getTransactionCount({ address: c.info.relayer })).toBe(nonceBefore);
    }, 60_000);
  });
}
