import { afterAll, describe, expect, test } from "bun:test";
import { type Address, type Hex, keccak256, parseTransaction } from "viem";
import { PERMIT2 } from "../../src/x402/permit2";
import { signedPayment } from "../support/authorization";
import { chainOf, randomAddress, tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";
import { nativeBalance, plainToken, signApprove, tokenOnlyPayer } from "./funded-approve-support";

const services = trackServices();
afterAll(() => services.stopAll());
const relay = services.start();
const c = chainOf("bsc");
const price = 10n ** 18n;
const relayer = c.info.relayer as Address;

/** What the approve's signer pays at most (gas limit × max fee), and what it did pay once mined. */
const maxCost = (raw: Hex) => {
  const tx = parseTransaction(raw);
  return (tx.gas as bigint) * (tx.maxFeePerGas as bigint);
};
const paidCost = async (raw: Hex) => {
  const receipt = await c.public.getTransactionReceipt({ hash: keccak256(raw) });
  return receipt.gasUsed * receipt.effectiveGasPrice;
};

/** A relay402 EOA payment of a token-only payer on bsc, with its signed approve of the relayer. */
async function fundedPayment(options: { spender?: Address } = {}) {
  const payer = await tokenOnlyPayer("bsc");
  const payTo = randomAddress();
  const body = await signedPayment({ network: "bsc", key: payer.key, to: payTo, value: price });
  const raw = await signApprove(payer.key, "bsc", { spender: options.spender ?? relayer });
  const withApproval = { ...body, paymentPayload: { ...body.paymentPayload, approval: { signedTransaction: raw } } };
  return { payer, payTo, body, raw, withApproval };
}

describe("relay402's EOA flow with a funded approve(relayer): a payer with only TestUSDT and no native coins pays", () => {
  test("verify, then settle: the payee gets the value, the payer loses it and only it, funded exactly its approve's cost; its next payment needs no approve", async () => {
    const { payer, payTo, raw, withApproval } = await fundedPayment();
    const tokensBefore = await tokenBalance("bsc", plainToken(), payer.address);
    expect((await relay.post("/verify", withApproval)).body).toMatchObject({ isValid: true, payer: payer.address });
    expect(await nativeBalance("bsc", payer.address)).toBe(0n);

    const settled = await relay.post("/settle", withApproval);
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ success: true });
    expect(await tokenBalance("bsc", plainToken(), payTo)).toBe(price);
    expect(await tokenBalance("bsc", plainToken(), payer.address)).toBe(tokensBefore - price);
    const left = maxCost(raw) - (await paidCost(raw));
    expect(await nativeBalance("bsc", payer.address)).toBe(left);

    const next = await signedPayment({ network: "bsc", key: payer.key, to: payTo, value: price });
    expect((await relay.post("/settle", next)).body).toMatchObject({ success: true });
    expect(await tokenBalance("bsc", plainToken(), payTo)).toBe(2n * price);
    expect(await nativeBalance("bsc", payer.address)).toBe(left);
  });

  test("ten concurrent settles: one funding, one approve, one settlement transaction", async () => {
    const { payer, payTo, raw, withApproval } = await fundedPayment();
    const answers = await Promise.all(Array.from({ length: 10 }, () => relay.post("/settle", withApproval)));
    const succeeded = answers.filter((answer) => (answer.body as { success?: boolean }).success);
    expect(succeeded.length).toBeGreaterThanOrEqual(1);
    expect(new Set(succeeded.map((answer) => (answer.body as { transaction: string }).transaction)).size).toBe(1);
    expect(await tokenBalance("bsc", plainToken(), payTo)).toBe(price);
    expect(await c.public.getTransactionCount({ address: payer.address })).toBe(1);
    expect(await nativeBalance("bsc", payer.address)).toBe(maxCost(raw) - (await paidCost(raw)));
  });

  test("an approve of another spender (Permit2, not the relayer) is refused with the field to fix, nobody funded", async () => {
    const { payer, payTo, withApproval } = await fundedPayment({ spender: PERMIT2 });
    const verdict = await relay.post("/verify", withApproval);
    expect(verdict.body).toMatchObject({ isValid: false });
    const settled = await relay.post("/settle", withApproval);
    expect(settled.status).toBe(400);
    expect(settled.body).toMatchObject({
      code: "payment_verification_error",
      details: { field: "paymentPayload.approval.signedTransaction", reason: "spender" },
    });
    expect(await nativeBalance("bsc", payer.address)).toBe(0n);
    expect(await tokenBalance("bsc", plainToken(), payTo)).toBe(0n);
  });
});
