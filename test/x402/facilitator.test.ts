import { afterAll, describe, expect, test } from "bun:test";
import type { PaymentRequirements } from "@x402/core/types";
import { chainOf, tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";
import { baseRequirements, listeningService, x402Buyer } from "./support";

const service = listeningService();
const others = trackServices();
afterAll(() => {
  service.stop();
  others.stopAll();
});

const token = chainOf("base").token.address;
const price = 1_250_000n; // 1.25 of the 6-decimal token
const balanceOf = (holder: string) => tokenBalance("base", token, holder as `0x${string}`);

describe("x402 v2 through @x402/core's HTTPFacilitatorClient", () => {
  const facilitator = service.facilitator();

  test("verify and settle pay the merchant exactly the price, once", async () => {
    const buyer = await x402Buyer();
    const requirements = baseRequirements(price);
    const payment = await buyer.pay(requirements);

    const verified = await facilitator.verify(payment, requirements);
    expect(verified).toMatchObject({ isValid: true, payer: buyer.address });

    const before = await balanceOf(requirements.payTo);
    const settled = await facilitator.settle(payment, requirements);
    expect(settled).toMatchObject({ success: true, payer: buyer.address, network: "eip155:8453", amount: "1250000" });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await balanceOf(requirements.payTo)).toBe(before + price);

    // The same payment replayed: refused at settle and at verify, and nothing more moves.
    const replayed = await facilitator.settle(payment, requirements);
    expect(replayed).toMatchObject({ success: false, errorReason: "invalid_exact_evm_nonce_already_used" });
    const reverified = await facilitator.verify(payment, requirements);
    expect(reverified).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_nonce_already_used" });
    expect(await balanceOf(requirements.payTo)).toBe(before + price);
  });

  test("two concurrent settles of one payment: one success, one nonce_already_used", async () => {
    const buyer = await x402Buyer();
    const requirements = baseRequirements(price);
    const payment = await buyer.pay(requirements);
    const answers = await Promise.all([
      facilitator.settle(payment, requirements),
      facilitator.settle(payment, requirements),
      facilitator.settle(payment, requirements),
    ]);
    expect(answers.filter((answer) => answer.success)).toHaveLength(1);
    for (const answer of answers.filter((a) => !a.success)) {
      expect(answer.errorReason).toBe("invalid_exact_evm_nonce_already_used");
    }
    expect(await balanceOf(requirements.payTo)).toBe(price);
  });

  test("a buyer without funds is refused with insufficient_balance and nothing is sent", async () => {
    const buyer = await x402Buyer({ tokens: 0n });
    const requirements = baseRequirements(price);
    const payment = await buyer.pay(requirements);
    expect(await facilitator.verify(payment, requirements)).toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_evm_insufficient_balance",
    });
    expect(await facilitator.settle(payment, requirements)).toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_insufficient_balance",
    });
    expect(await balanceOf(requirements.payTo)).toBe(0n);
  });

  test("a payment to someone other than payTo, or of another amount, is refused", async () => {
    const buyer = await x402Buyer();
    const requirements = baseRequirements(price);
    const payment = await buyer.pay(requirements);
    const otherShop: PaymentRequirements = { ...requirements, payTo: baseRequirements(price).payTo };
    expect(await facilitator.settle(payment, otherShop)).toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_recipient_mismatch",
    });
    const cheaper: PaymentRequirements = { ...requirements, amount: (price - 1n).toString() };
    expect(await facilitator.settle(payment, cheaper)).toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_authorization_value",
    });
    expect(await balanceOf(requirements.payTo)).toBe(0n);
    expect(await balanceOf(otherShop.payTo)).toBe(0n);
  });

  test("a tampered signature is invalid_exact_evm_signature", async () => {
    const buyer = await x402Buyer();
    const requirements = baseRequirements(price);
    const payment = await buyer.pay(requirements);
    const inner = payment.payload as { authorization: { value: string } };
    const tampered = {
      ...payment,
      payload: { ...payment.payload, authorization: { ...inner.authorization, value: "2500000" } },
    };
    expect(await facilitator.settle(tampered, { ...requirements, amount: "2500000" })).toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_signature",
    });
    expect(await balanceOf(requirements.payTo)).toBe(0n);
  });
});

describe("x402 v1 (network base)", () => {
  test("a v1 payment settles once and its replay is refused", async () => {
    const facilitator = service.facilitator();
    const buyer = await x402Buyer();
    const { payload, requirements } = await buyer.payV1(baseRequirements(price));
    expect(await facilitator.verify(payload as never, requirements as never)).toMatchObject({ isValid: true });
    const settled = await facilitator.settle(payload as never, requirements as never);
    expect(settled).toMatchObject({ success: true, network: "base" });
    expect(await balanceOf(requirements.payTo)).toBe(price);
    expect(await facilitator.settle(payload as never, requirements as never)).toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_nonce_already_used",
    });
    expect(await balanceOf(requirements.payTo)).toBe(price);
  });
});

describe("GET /supported and the network switch", () => {
  test("lists exact on bsc (Permit2) and base (v2 and v1) with the executors as signers", async () => {
    const supported = await service.facilitator().getSupported();
    expect(
      supported.kinds.map(({ x402Version, scheme, network }) => ({ x402Version, scheme, network })) as unknown[],
    ).toEqual([
      { x402Version: 2, scheme: "exact", network: "eip155:56" },
      { x402Version: 2, scheme: "exact", network: "eip155:8453" },
      { x402Version: 1, scheme: "exact", network: "base" },
    ]);
    // Each kind lists the assets it settles and how (this harness skips the start's reads of EIP-712 names).
    const methods = supported.kinds.map((kind) =>
      (kind.extra as { assets: { symbol: string; assetTransferMethod: string }[] }).assets.map(
        (asset) => `${asset.symbol}:${asset.assetTransferMethod}`,
      ),
    );
    expect(methods[0]).toContain("USDT:permit2");
    expect(methods[1]).toContain("USDC:eip3009");
    expect(methods[2]).toEqual(methods[1] as string[]);
    // PUSD, paid through Permit2, has EIP-2612 permit: its payer's permit goes on-chain with the settlement; and the
    // network funds a payer's signed approve where a token has no permit.
    expect(supported.extensions).toEqual(["eip2612GasSponsoring", "erc20ApprovalGasSponsoring", "payment-identifier"]);
    const executors = service.services.networks.get("base").executor.addresses;
    expect(supported.signers["eip155:*"]).toEqual(expect.arrayContaining([...executors]));
  });

  test("x402 switched off on base: absent from /supported, and its payments are invalid_network", async () => {
    const off = others.start({}, (config) => {
      if (config.networks.base) config.networks.base.x402 = { enabled: false };
    });
    expect((await off.get("/supported")).body.kinds).toMatchObject([
      { x402Version: 2, scheme: "exact", network: "eip155:56" },
    ]);
    const buyer = await x402Buyer();
    const requirements = baseRequirements(price);
    const payment = await buyer.pay(requirements);
    const body = { x402Version: 2, paymentPayload: payment, paymentRequirements: requirements };
    const verified = await off.post("/verify", body);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ isValid: false, invalidReason: "invalid_network" });
    const settled = await off.post("/settle", body);
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ success: false, errorReason: "invalid_network" });
    expect(await balanceOf(requirements.payTo)).toBe(0n);
  });
});
