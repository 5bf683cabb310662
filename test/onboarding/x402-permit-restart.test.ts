import { afterAll, describe, expect, test } from "bun:test";
import type { Hex } from "viem";
import { permit2SettleRequest } from "../../src/x402/permit2-payment";
import { createX402SettlementStore } from "../../src/x402/settlement-store";
import { parseX402Body, type X402Permit2Payment } from "../../src/x402/wire";
import { chainOf, tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";
import { claimPermit2Record } from "../x402/support";
import { tokenOnlyPayer } from "./funded-approve-support";
import { executorsNative, gasCost, permitRequirements, permitToken, sponsoredPayload } from "./permit-support";

// A sponsored x402 payment (EIP-2612 permit and Permit2 payment in one settleWithPermit) left by a crash: the
// restart finishes it, once, and the permit is sent once.

const services = trackServices();
afterAll(() => services.stopAll());

const network = "bsc" as const;
const PRICE = 300_000n;

/** A sponsored payment claimed by a first service that then "crashed", before (`sent: false`) or after signing it. */
async function crashedSettlement(sent: boolean) {
  const token = permitToken(network).address;
  const payer = await tokenOnlyPayer(network, PRICE * 2n, token);
  const requirements = permitRequirements(network, PRICE);
  const body = {
    x402Version: 2,
    paymentPayload: await sponsoredPayload(payer.key, requirements),
    paymentRequirements: requirements,
  };
  const parsed = parseX402Body(body);
  if (!parsed.ok || parsed.payment.method !== "permit2" || !parsed.payment.eip2612)
    throw new Error("not a sponsored Permit2 payment");
  const { permit, eip2612 } = parsed.payment as X402Permit2Payment;
  const first = services.start();
  const store = createX402SettlementStore(first.db);
  const { record } = claimPermit2Record(store, network, permit);
  let hash: Hex | undefined;
  if (sent) {
    const runtime = first.services.networks.get(network);
    const prepared = await runtime.executor.prepare(permit2SettleRequest(runtime, permit, eip2612));
    store.markSent(record.id, prepared.hash, prepared.raw);
    hash = prepared.hash;
  }
  first.stop();
  const restarted = services.start({ databasePath: first.databasePath });
  return { restarted, body, requirements, payer, token, hash };
}

describe("sponsored x402 settlements left unfinished by a crash", () => {
  test("signed, never broadcast: reconciliation sends the one settleWithPermit, the next settle answers success once", async () => {
    const { restarted, body, requirements, payer, token, hash } = await crashedSettlement(true);
    const executorsBefore = await executorsNative(network);
    await restarted.services.x402.reconcile();
    expect(await tokenBalance(network, token, requirements.payTo as Hex)).toBe(PRICE);
    expect((await restarted.post("/settle", body)).body).toMatchObject({ success: true, transaction: hash });
    expect((await restarted.post("/settle", body)).body).toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_nonce_already_used",
    });
    expect(await tokenBalance(network, token, requirements.payTo as Hex)).toBe(PRICE);
    expect(await tokenBalance(network, token, payer.address)).toBe(PRICE);
    expect(await chainOf(network).public.getBalance({ address: payer.address })).toBe(0n);
    expect(executorsBefore - (await executorsNative(network))).toBe(await gasCost(network, hash as Hex));
  });

  test("claimed, never signed: reconciliation releases it and the next settle pays, once", async () => {
    const { restarted, body, requirements, payer, token } = await crashedSettlement(false);
    await restarted.services.x402.reconcile();
    expect(await tokenBalance(network, token, requirements.payTo as Hex)).toBe(0n);
    const settled = (await restarted.post("/settle", body)).body as { success: boolean; transaction: Hex };
    expect(settled).toMatchObject({ success: true });
    expect((await restarted.post("/settle", body)).body).toMatchObject({ success: false });
    expect(await tokenBalance(network, token, requirements.payTo as Hex)).toBe(PRICE);
    expect(await tokenBalance(network, token, payer.address)).toBe(PRICE);
  });
});
