// x402 settle answers carry the payment's id in `extra.paymentId` (x402's clients drop unknown top-level fields),
// computed by the client from its signed body: (chain id, the token for EIP-3009 or Permit2, payer, nonce). A payment
// still in flight keeps x402's 200 `settlement_pending` shape, with the id too.
import { afterAll, describe, expect, test } from "bun:test";
import { paymentIdOf } from "@relay402/client/wire/payment-id";
import type { Address, Hex } from "viem";
import { PERMIT2 } from "../../src/x402/permit2";
import { chainOf, tokenBalance } from "../support/chain";
import {
  authorizationOf,
  baseRequirements,
  bscRequirements,
  listeningService,
  permit2Buyer,
  permitOf,
  x402Buyer,
} from "./support";

const service = listeningService({}, (config) => {
  if (config.networks.base) Object.assign(config.networks.base, { receiptTimeoutMs: 1500, replaceAfterMs: 60_000 });
});
afterAll(() => service.stop());

const facilitator = service.facilitator();
const base = chainOf("base");
const bsc = chainOf("bsc");
const price = 1_250_000n;

const eip3009Id = (from: Address, nonce: Hex) =>
  paymentIdOf({ chainId: base.info.chainId, contract: base.token.address, payer: from, nonce });

describe("extra.paymentId on x402 settle answers", () => {
  test("v2 EIP-3009: the id of the token's nonce space, on the success and on the refused replay", async () => {
    const buyer = await x402Buyer();
    const requirements = baseRequirements(price);
    const payment = await buyer.pay(requirements);
    const { authorization } = authorizationOf(payment);
    const paymentId = eip3009Id(authorization.from, authorization.nonce);
    const settled = await facilitator.settle(payment, requirements);
    expect(settled).toMatchObject({ success: true, extra: { paymentId } });
    expect(await facilitator.settle(payment, requirements)).toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_nonce_already_used",
      extra: { paymentId },
    });
    expect(await tokenBalance("base", base.token.address, requirements.payTo as Address)).toBe(price);
  });

  test("v1 EIP-3009: the same formula, over HTTP as the legacy packages post it", async () => {
    const buyer = await x402Buyer();
    const { payload, requirements } = await buyer.payV1(baseRequirements(price));
    const { authorization } = authorizationOf(payload as never);
    const answer = await service.post("/settle", {
      x402Version: 1,
      paymentPayload: payload,
      paymentRequirements: requirements,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      success: true,
      extra: { paymentId: eip3009Id(authorization.from, authorization.nonce) },
    });
  });

  test("Permit2: the id of Permit2's nonce space (chain id, Permit2, payer, uint256 nonce)", async () => {
    const buyer = await permit2Buyer();
    const requirements = bscRequirements(2n * 10n ** 18n);
    const payment = await buyer.pay(requirements);
    const { permit2Authorization } = permitOf(payment);
    const paymentId = paymentIdOf({
      chainId: bsc.info.chainId,
      contract: PERMIT2,
      payer: permit2Authorization.from,
      nonce: BigInt(permit2Authorization.nonce),
    });
    expect(await facilitator.settle(payment, requirements)).toMatchObject({ success: true, extra: { paymentId } });
  });

  test("in flight: x402's 200 settlement_pending with the id, then the final result under the same id", async () => {
    const buyer = await x402Buyer();
    const requirements = baseRequirements(price);
    const payment = await buyer.pay(requirements);
    const { authorization } = authorizationOf(payment);
    const paymentId = eip3009Id(authorization.from, authorization.nonce);
    const body = { x402Version: 2, paymentPayload: payment, paymentRequirements: requirements };
    await base.test.setAutomine(false);
    let pending: Awaited<ReturnType<typeof service.post>>;
    try {
      pending = await service.post("/settle", body);
      await base.test.mine({ blocks: 1 });
    } finally {
      await base.test.setAutomine(true);
    }
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({ success: false, errorReason: "settlement_pending", extra: { paymentId } });
    const done = await service.post("/settle", body);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ success: true, transaction: pending.body.transaction, extra: { paymentId } });
  });
});
