import { expect, test } from "bun:test";
import { parseX402Body } from "./wire";

const permit2Body = (permit2Authorization: unknown, signature: unknown = `0x${"11".repeat(65)}`) => ({
  x402Version: 2,
  paymentPayload: {
    x402Version: 2,
    accepted: { scheme: "exact", network: "eip155:56" },
    payload: { permit2Authorization, signature },
  },
  paymentRequirements: {
    scheme: "exact",
    network: "eip155:56",
    asset: "0x55d398326f99059fF775485246999027B3197955",
    amount: "1000",
    payTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
    maxTimeoutSeconds: 60,
    extra: { assetTransferMethod: "permit2" },
  },
});

const permit = {
  from: "0x857b06519E91e3A54538791bDbb0E22373e36b66",
  permitted: { token: "0x55d398326f99059fF775485246999027B3197955", amount: "1000" },
  spender: "0x402085c248EeA27D92E8b30b2C58ed07f9E20001",
  nonce: "115792089237316195423570985008687907853269984665640564039457584007913129639935",
  deadline: "1900000000",
  witness: { to: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", validAfter: "0" },
};

test("a permit2Authorization as @x402/evm sends it is read into relay402's types", () => {
  const parsed = parseX402Body(permit2Body(permit));
  expect(parsed.ok).toBe(true);
  if (!parsed.ok || parsed.payment.method !== "permit2") throw new Error("not parsed as Permit2");
  expect(parsed.payment.permit).toMatchObject({
    amount: 1000n,
    nonce: 2n ** 256n - 1n,
    deadline: 1_900_000_000n,
    validAfter: 0n,
    spender: "0x402085c248EeA27D92E8b30b2C58ed07f9E20001",
  });
});

test("malformed permits are refusals, never exceptions", () => {
  const cases: [unknown, unknown, string][] = [
    [{ ...permit, nonce: "-1" }, undefined, "malformed"],
    [{ ...permit, nonce: (2n ** 256n).toString() }, undefined, "malformed"],
    [{ ...permit, permitted: { token: "0x12", amount: "1" } }, undefined, "malformed"],
    [{ ...permit, witness: null }, undefined, "malformed"],
    [{ ...permit, spender: 7 }, undefined, "malformed"],
    [permit, "0xzz", "malformedSignature"],
    [permit, `0x${"11".repeat(5000)}`, "malformedSignature"],
  ];
  for (const [authorization, signature, refusal] of cases) {
    const parsed = parseX402Body(permit2Body(authorization, signature ?? `0x${"11".repeat(65)}`));
    expect(parsed).toMatchObject({ ok: false, refusal });
  }
});
