import { afterAll, describe, expect, test } from "bun:test";
import { paymentIdOf } from "@relay402/client/wire/payment-id";
import { encodeFunctionData } from "viem";
import { eip3009TokenAbi } from "../../src/x402/eip3009";
import { createX402SettlementStore } from "../../src/x402/settlement-store";
import { signedPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, randomAddress, tokenBalance } from "../support/chain";
import { signUnsent, trackServices } from "../support/service";
import { authorizationOf, baseRequirements, x402Buyer } from "./support";

const services = trackServices();
afterAll(() => services.stopAll());

const c = chainOf("base");
const price = 1_250_000n;
const balanceOf = (holder: string) => tokenBalance("base", c.token.address, holder as `0x${string}`);

/**
 * A payment claimed by `first`, whose transaction is signed (`sent: true`) but never broadcast, or never signed; the
 * service is left running (the caller "crashes" it).
 */
async function unfinishedSettlement(first: ReturnType<typeof services.start>, sent: boolean) {
  const buyer = await x402Buyer();
  const requirements = baseRequirements(price);
  const payment = await buyer.pay(requirements);
  const { authorization: a, signature } = authorizationOf(payment);
  const store = createX402SettlementStore(first.db);
  const { record } = store.claim({
    network: "base",
    contract: c.token.address,
    payer: a.from,
    nonce: a.nonce,
    recipient: a.to,
    amount: a.value,
    validAfter: Number(a.validAfter),
    validBefore: Number(a.validBefore),
    signature: signature.toLowerCase(),
    paymentId: paymentIdOf({ chainId: c.info.chainId, contract: c.token.address, payer: a.from, nonce: a.nonce }),
  });
  if (sent) {
    const runtime = first.services.networks.get("base");
    const args = [
      a.from,
      a.to,
      BigInt(a.value),
      BigInt(a.validAfter),
      BigInt(a.validBefore),
      a.nonce,
      signature,
    ] as const;
    const prepared = await runtime.executor.prepare({
      to: c.token.address,
      data: encodeFunctionData({ abi: eip3009TokenAbi, functionName: "transferWithAuthorization", args }),
      gas: 250_000n,
    });
    store.markSent(record.id, prepared.hash, prepared.raw);
  }
  const body = { x402Version: 2, paymentPayload: payment, paymentRequirements: requirements };
  return { body, requirements };
}

/** A payment claimed by a first service that then "crashed", before (`sent: false`) or after signing its transaction. */
async function crashedSettlement(sent: boolean) {
  const first = services.start();
  const { body, requirements } = await unfinishedSettlement(first, sent);
  first.stop();
  const restarted = services.start({ databasePath: first.databasePath });
  return { restarted, body, requirements };
}

describe("x402 settlements left unfinished by a crash", () => {
  test("signed, never broadcast: reconciliation sends it, the next settle answers success once", async () => {
    const { restarted, body, requirements } = await crashedSettlement(true);
    await restarted.services.x402.reconcile();
    expect(await balanceOf(requirements.payTo)).toBe(price);
    expect((await restarted.post("/settle", body)).body).toMatchObject({ success: true });
    expect((await restarted.post("/settle", body)).body).toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_nonce_already_used",
    });
    expect(await balanceOf(requirements.payTo)).toBe(price);
  });

  test("an x402 and an EOA settlement signed by one key, the x402 one at the lower nonce: the restart finishes both", async () => {
    // One executor key: the x402 transaction at nonce n, the EOA one at n + 1, neither broadcast.
    const first = services.start({}, (config) => {
      config.networks.base!.executorKeys.splice(1);
    });
    const x402 = await unfinishedSettlement(first, true);
    const payer = await freshPayer("base");
    await approveRelayer("base", payer.key, price);
    const to = randomAddress();
    const eoa = await signUnsent(
      first,
      "base",
      await signedPayment({ network: "base", key: payer.key, to, value: price }),
    );
    first.stop();

    // Resumed one kind after the other, the EOA one (first) would wait out this receipt timeout and stay unconfirmed.
    const restarted = services.start({ databasePath: first.databasePath }, (config) => {
      config.networks.base!.receiptTimeoutMs = 1_500;
    });
    await restarted.services.reconcile();
    const record = restarted.store.find({ network: "base", payer: payer.address, nonce: eoa.authorization.nonce });
    expect([record?.status, record?.txHash]).toEqual(["success", eoa.prepared.hash]);
    expect(await balanceOf(to)).toBe(price);
    expect(await balanceOf(x402.requirements.payTo)).toBe(price);
    expect((await restarted.post("/settle", x402.body)).body).toMatchObject({ success: true });
  });

  test("claimed, never signed: reconciliation frees it and the payment settles", async () => {
    const { restarted, body, requirements } = await crashedSettlement(false);
    await restarted.services.x402.reconcile();
    expect((await restarted.post("/settle", body)).body).toMatchObject({ success: true });
    expect(await balanceOf(requirements.payTo)).toBe(price);
  });
});
