import { afterAll, describe, expect, test } from "bun:test";
import { encodeFunctionData } from "viem";
import { eip3009TokenAbi } from "../../src/x402/eip3009";
import { createX402SettlementStore } from "../../src/x402/settlement-store";
import { chainOf, tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";
import { authorizationOf, baseRequirements, x402Buyer } from "./support";

const services = trackServices();
afterAll(() => services.stopAll());

const c = chainOf("base");
const price = 1_250_000n;
const balanceOf = (holder: string) => tokenBalance("base", c.token.address, holder as `0x${string}`);

/** A payment claimed by a first service that then "crashed", before (`sent: false`) or after signing its transaction. */
async function crashedSettlement(sent: boolean) {
  const buyer = await x402Buyer();
  const requirements = baseRequirements(price);
  const payment = await buyer.pay(requirements);
  const { authorization: a, signature } = authorizationOf(payment);
  const first = services.start();
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
  first.stop();
  const restarted = services.start({ databasePath: first.databasePath });
  const body = { x402Version: 2, paymentPayload: payment, paymentRequirements: requirements };
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

  test("claimed, never signed: reconciliation frees it and the payment settles", async () => {
    const { restarted, body, requirements } = await crashedSettlement(false);
    await restarted.services.x402.reconcile();
    expect((await restarted.post("/settle", body)).body).toMatchObject({ success: true });
    expect(await balanceOf(requirements.payTo)).toBe(price);
  });
});
