import { afterAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Hex } from "viem";
import { x402Settlements } from "../../src/db/schema";
import { chainOf, randomAddress, tokenBalance } from "../support/chain";
import { swapTokensOf } from "../support/dex";
import { trackServices } from "../support/service";
import {
  authorizationOf,
  baseRequirements,
  bscRequirements,
  permit2Buyer,
  signTransfer,
  submitToToken,
  x402Buyer,
} from "./support";

const services = trackServices();
afterAll(() => services.stopAll());

const c = chainOf("base");
const price = 1_250_000n;
const balanceOf = (holder: string) => tokenBalance("base", c.token.address, holder as `0x${string}`);
const x402Body = (paymentPayload: unknown, paymentRequirements: unknown) => ({
  x402Version: 2,
  paymentPayload,
  paymentRequirements,
});

describe("relay402's own rules, in x402's reason codes", () => {
  const service = services.start({}, (config) => {
    const base = config.networks.base;
    if (base?.tokens[0]) base.tokens[0].minPaymentValue = 1_000_000n;
  });

  const refusal = async (body: unknown) => {
    const verified = await service.post("/verify", body);
    const settled = await service.post("/settle", body);
    expect(verified.status).toBe(200);
    expect(settled.status).toBe(200);
    expect(settled.body.success).toBe(false);
    expect(settled.body.errorReason).toBe(verified.body.invalidReason);
    return verified.body as { isValid: boolean; invalidReason: string };
  };

  test("zero value and a value under the token's minimum: invalid_exact_evm_authorization_value", async () => {
    const buyer = await x402Buyer();
    for (const amount of [0n, 999_999n]) {
      const requirements = baseRequirements(amount);
      const payment = await buyer.pay(requirements);
      expect(await refusal(x402Body(payment, requirements))).toMatchObject({
        isValid: false,
        invalidReason: "invalid_exact_evm_authorization_value",
      });
    }
  });

  test("validBefore inside the margin: invalid_exact_evm_payload_authorization_valid_before", async () => {
    const buyer = await x402Buyer();
    const requirements = baseRequirements(price, { maxTimeoutSeconds: 3 }); // the devnet's margin is 6 s
    const payment = await buyer.pay(requirements);
    expect(await refusal(x402Body(payment, requirements))).toMatchObject({
      invalidReason: "invalid_exact_evm_payload_authorization_valid_before",
    });
    expect(await balanceOf(requirements.payTo)).toBe(0n);
  });

  test("a denied payer: invalid_payload", async () => {
    const buyer = await x402Buyer();
    for (let i = 0; i < service.config.denyAfterReverts; i++)
      await service.services.deny.recordRevert("base", "payer", buyer.address, "test");
    const requirements = baseRequirements(price);
    const payment = await buyer.pay(requirements);
    expect(await refusal(x402Body(payment, requirements))).toMatchObject({ invalidReason: "invalid_payload" });
    expect(await balanceOf(requirements.payTo)).toBe(0n);
  });

  test("an asset relay402 does not accept on the network: invalid_payment_requirements, naming it", async () => {
    const buyer = await x402Buyer();
    // A token of the chain that relay402 does not take (the DEX's wrapped native), and an address that is no token.
    for (const asset of [swapTokensOf("base").w, randomAddress()]) {
      const requirements = baseRequirements(price, { asset });
      const payment = await buyer.pay(requirements);
      const refused = await refusal(x402Body(payment, requirements));
      expect(refused).toMatchObject({ isValid: false, invalidReason: "invalid_payment_requirements" });
      expect((refused as { invalidMessage?: string }).invalidMessage).toBe(
        `${asset} is not an asset relay402 accepts on base; GET /supported lists the assets it accepts`,
      );
      expect(await balanceOf(requirements.payTo)).toBe(0n);
    }
    // The same with Permit2 on bsc, for its wrapped native.
    const permit2 = await permit2Buyer({ approve: false });
    const asset = swapTokensOf("bsc").w;
    const requirements = bscRequirements(price, { asset });
    const refused = await refusal(x402Body(await permit2.pay(requirements), requirements));
    expect(refused).toMatchObject({ isValid: false, invalidReason: "invalid_payment_requirements" });
    expect((refused as { invalidMessage?: string }).invalidMessage).toBe(
      `${asset} is not an asset relay402 accepts on bsc; GET /supported lists the assets it accepts`,
    );
  });

  test("one of the network's tokens without EIP-3009, paid with EIP-3009: invalid_exact_evm_eip3009_not_supported", async () => {
    const token = service.config.networks.base?.tokens.find((candidate) => !candidate.eip3009);
    expect(token).toBeDefined(); // the devnet's base serves its DEX's DAI, which has no EIP-3009
    const buyer = await x402Buyer();
    const requirements = baseRequirements(price, { asset: token!.address });
    const payment = await buyer.pay(requirements);
    const refused = await refusal(x402Body(payment, requirements));
    expect(refused).toMatchObject({ invalidReason: "invalid_exact_evm_eip3009_not_supported" });
    expect((refused as { invalidMessage?: string }).invalidMessage).toContain('extra.assetTransferMethod "permit2"');
  });

  test("a network x402 does not serve (Ethereum and solana are none of ours): invalid_network", async () => {
    const buyer = await x402Buyer();
    for (const network of ["eip155:1", "solana:mainnet"]) {
      const requirements = baseRequirements(price);
      const payment = await buyer.pay(requirements);
      const elsewhere = { ...requirements, network };
      const body = x402Body({ ...payment, accepted: elsewhere }, elsewhere);
      expect(await refusal(body)).toMatchObject({ invalidReason: "invalid_network" });
    }
  });

  test("malformed x402 bodies are 200 invalid_payload or invalid_x402_version, never an envelope", async () => {
    for (const [body, reason] of [
      [{ x402Version: 2, paymentPayload: "x", paymentRequirements: {} }, "invalid_payload"],
      [{ x402Version: 7, paymentPayload: {}, paymentRequirements: {} }, "invalid_x402_version"],
    ] as const) {
      expect(await refusal(body)).toMatchObject({ isValid: false, invalidReason: reason });
    }
  });
});

describe("settlement against the chain", () => {
  const service = services.start({}, (config) => {
    if (config.networks.base) config.networks.base.receiptTimeoutMs = 500;
  });
  const recordOf = (nonce: Hex) =>
    service.db.select().from(x402Settlements).where(eq(x402Settlements.nonce, nonce)).get();

  async function whileNotMining<T>(task: () => Promise<T>): Promise<T> {
    await c.test.setAutomine(false);
    try {
      return await task();
    } finally {
      await c.test.setAutomine(true);
    }
  }

  test("settlement_pending, then the next settle answers the final result, then never success again", async () => {
    const buyer = await x402Buyer();
    const requirements = baseRequirements(price);
    const payment = await buyer.pay(requirements);
    const body = x402Body(payment, requirements);
    const pending = await whileNotMining(() => service.post("/settle", body));
    expect(pending.body).toMatchObject({ success: false, errorReason: "settlement_pending" });
    expect(pending.body.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    await c.test.mine({ blocks: 1 });
    const final = await service.post("/settle", body);
    expect(final.body).toMatchObject({ success: true, transaction: pending.body.transaction });
    expect(await balanceOf(requirements.payTo)).toBe(price);
    const again = await service.post("/settle", body);
    expect(again.body).toMatchObject({ success: false, errorReason: "invalid_exact_evm_nonce_already_used" });
  });

  test("front-run by another transfer with the same nonce: never a success, the merchant is not paid", async () => {
    const buyer = await x402Buyer();
    const requirements = baseRequirements(price);
    const payment = await buyer.pay(requirements);
    const { nonce } = authorizationOf(payment).authorization;
    const accomplice = randomAddress();
    const theft = await signTransfer(buyer.key, { to: accomplice, value: 1n, nonce });
    const settled = await whileNotMining(async () => {
      const settling = service.post("/settle", x402Body(payment, requirements));
      for (let i = 0; i < 100 && recordOf(nonce)?.status !== "sent"; i++) await Bun.sleep(50);
      expect(recordOf(nonce)?.status).toBe("sent");
      await Bun.sleep(100);
      await submitToToken(buyer.key, theft);
      await c.test.mine({ blocks: 1 });
      return settling;
    });
    expect(settled.body).toMatchObject({ success: false, errorReason: "invalid_exact_evm_nonce_already_used" });
    expect(await balanceOf(requirements.payTo)).toBe(0n);
    expect(await balanceOf(accomplice)).toBe(1n);
  });

  test("the same authorization executed by someone else first counts (its Transfer matches), once", async () => {
    const buyer = await x402Buyer();
    const requirements = baseRequirements(price);
    const payment = await buyer.pay(requirements);
    const { authorization, signature } = authorizationOf(payment);
    const settled = await whileNotMining(async () => {
      const settling = service.post("/settle", x402Body(payment, requirements));
      for (let i = 0; i < 100 && recordOf(authorization.nonce)?.status !== "sent"; i++) await Bun.sleep(50);
      await Bun.sleep(100);
      await submitToToken(buyer.key, {
        ...authorization,
        value: BigInt(authorization.value),
        validAfter: BigInt(authorization.validAfter),
        validBefore: BigInt(authorization.validBefore),
        signature,
      });
      await c.test.mine({ blocks: 1 });
      return settling;
    });
    expect(settled.body).toMatchObject({ success: true });
    expect(await balanceOf(requirements.payTo)).toBe(price);
    const again = await service.post("/settle", x402Body(payment, requirements));
    expect(again.body).toMatchObject({ success: false, errorReason: "invalid_exact_evm_nonce_already_used" });
  });
});
