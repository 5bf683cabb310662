import { afterAll, describe, expect, test } from "bun:test";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { permit2SettleRequest } from "../../src/x402/permit2-payment";
import { createX402SettlementStore } from "../../src/x402/settlement-store";
import { parseX402Body, type X402Permit2Payment } from "../../src/x402/wire";
import { chainOf, freshPayer, tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";
import { bscRequirements, claimPermit2Record, permit2Buyer, permitOf, submitToProxy } from "./support";

const services = trackServices();
afterAll(() => services.stopAll());

const c = chainOf("bsc");
const price = 10n ** 18n;
const balanceOf = (holder: string) => tokenBalance("bsc", c.token.address, holder as `0x${string}`);

/** A Permit2 payment claimed by a first service that then "crashed", before (`sent: false`) or after signing its transaction. */
async function crashedSettlement(sent: boolean) {
  const buyer = await permit2Buyer();
  const requirements: PaymentRequirements = bscRequirements(price);
  const payment: PaymentPayload = await buyer.pay(requirements);
  const body = { x402Version: 2, paymentPayload: payment, paymentRequirements: requirements };
  const parsed = parseX402Body(body);
  if (!parsed.ok || parsed.payment.method !== "permit2") throw new Error("not a Permit2 payment");
  const { permit } = parsed.payment as X402Permit2Payment;
  const first = services.start();
  const store = createX402SettlementStore(first.db);
  const { record } = claimPermit2Record(store, "bsc", permit);
  if (sent) {
    const runtime = first.services.networks.get("bsc");
    const prepared = await runtime.executor.prepare(permit2SettleRequest(runtime, permit));
    store.markSent(record.id, prepared.hash, prepared.raw);
  }
  first.stop();
  const restarted = services.start({ databasePath: first.databasePath });
  return { restarted, body, requirements, payment };
}

describe("x402 Permit2 settlements left unfinished by a crash", () => {
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

  test("claimed, never signed, then executed by someone else: reconciliation finds that transfer, success once", async () => {
    const { restarted, body, requirements, payment } = await crashedSettlement(false);
    const stranger = await freshPayer("bsc", { tokens: 0n });
    const hash = await submitToProxy(stranger.key, permitOf(payment));
    await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    await restarted.services.x402.reconcile();
    expect((await restarted.post("/settle", body)).body).toMatchObject({ success: true, transaction: hash });
    expect((await restarted.post("/settle", body)).body).toMatchObject({ success: false });
    expect(await balanceOf(requirements.payTo)).toBe(price);
  });
});
