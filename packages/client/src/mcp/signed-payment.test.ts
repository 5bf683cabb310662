import { describe, expect, test } from "bun:test";
import { PERMIT2_ADDRESS } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { ExactEvmSchemeV1 } from "@x402/evm/v1";
import { encodeFunctionData, getAddress, maxUint256 } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { erc20Abi } from "../wire/abis.js";
import { EIP2612_PERMIT_TYPES } from "../wire/eip2612-permit.js";
import { type ReservedPayment, refusalOfSignedPayment } from "./signed-payment.js";

// Real payloads, signed by x402's own client schemes with a real key; only the chain is absent (nothing is sent).
const agent = privateKeyToAccount(generatePrivateKey());
const stranger = privateKeyToAccount(generatePrivateKey());
const token = getAddress("0x1111111111111111111111111111111111111111");
const otherToken = getAddress("0x2222222222222222222222222222222222222222");
const payTo = getAddress("0x3333333333333333333333333333333333333333");
const domain = { name: "USD Coin", version: "2" };
const reserved: ReservedPayment = { agent: agent.address, chainId: 8453, token, domain, amount: 1_250_000n, to: payTo };
const offer = {
  scheme: "exact",
  network: "eip155:8453" as const,
  asset: token,
  amount: "1250000",
  payTo,
  maxTimeoutSeconds: 300,
  extra: domain,
};

const exact = (signer = agent) => new ExactEvmScheme(signer);

describe("an EIP-3009 payload", () => {
  test("exactly the reservation, signed by the agent over the reserved token's domain: sent", async () => {
    const signed = await exact().createPaymentPayload(2, offer);
    expect(await refusalOfSignedPayment("exact", signed, reserved)).toBeNull();
  });

  test("v1's exact scheme signs maxAmountRequired: a reservation of `amount` is refused when they differ", async () => {
    const v1Offer = {
      ...offer,
      network: "base",
      maxAmountRequired: "1000000000000",
      resource: "",
      description: "",
      mimeType: "",
    };
    const signed = await new ExactEvmSchemeV1(agent).createPaymentPayload(1, v1Offer as never);
    expect(await refusalOfSignedPayment("exact", signed, reserved)).toContain(
      "it signs 1000000000000 base units where 1250000 were reserved",
    );
    const asSigned = { ...reserved, amount: 1_000_000_000_000n };
    expect(await refusalOfSignedPayment("exact", signed, asSigned)).toBeNull();
  });

  test("another amount, payee, token, chain or signer: refused", async () => {
    const more = await exact().createPaymentPayload(2, { ...offer, amount: "1250001" });
    expect(await refusalOfSignedPayment("exact", more, reserved)).toContain("where 1250000 were reserved");
    const elsewhere = await exact().createPaymentPayload(2, { ...offer, payTo: otherToken });
    expect(await refusalOfSignedPayment("exact", elsewhere, reserved)).toContain("another address");
    // The payload names no token: signed over another token's domain, it recovers to another address.
    const otherAsset = await exact().createPaymentPayload(2, { ...offer, asset: otherToken });
    expect(await refusalOfSignedPayment("exact", otherAsset, reserved)).toContain("not signed by the agent");
    const otherChain = await exact().createPaymentPayload(2, { ...offer, network: "eip155:56" });
    expect(await refusalOfSignedPayment("exact", otherChain, reserved)).not.toBeNull();
    const notTheAgent = await exact(stranger).createPaymentPayload(2, offer);
    expect(await refusalOfSignedPayment("exact", notTheAgent, reserved)).toContain("not signed by the agent");
  });

  test("a payload that cannot be read, or of a scheme the agent cannot check, is refused", async () => {
    expect(await refusalOfSignedPayment("exact", { payload: { authorization: { from: "x" } } }, reserved)).toContain(
      "cannot be read",
    );
    const signed = await exact().createPaymentPayload(2, offer);
    expect(await refusalOfSignedPayment("batch-settlement", signed, reserved)).toContain("not one the agent can check");
  });
});

describe("a Permit2 payload", () => {
  const permit2Offer = { ...offer, extra: { ...domain, assetTransferMethod: "permit2" } };

  test("the reservation through x402's exact proxy: sent; another amount or token: refused", async () => {
    const signed = await exact().createPaymentPayload(2, permit2Offer);
    expect(await refusalOfSignedPayment("exact", signed, reserved)).toBeNull();
    const more = await exact().createPaymentPayload(2, { ...permit2Offer, amount: "2000000" });
    expect(await refusalOfSignedPayment("exact", more, reserved)).toContain("where 1250000 were reserved");
    const other = await exact().createPaymentPayload(2, { ...permit2Offer, asset: otherToken });
    expect(await refusalOfSignedPayment("exact", other, reserved)).toContain("another token");
  });

  test("a spender other than x402's proxy, re-signed by the agent: refused", async () => {
    const signed = await exact().createPaymentPayload(2, permit2Offer);
    const inner = signed.payload as { permit2Authorization: Record<string, unknown> };
    const permit = { ...inner.permit2Authorization, spender: stranger.address };
    const { permitted, nonce, deadline, witness } = permit as unknown as {
      permitted: { token: `0x${string}`; amount: string };
      nonce: string;
      deadline: string;
      witness: { to: `0x${string}`; validAfter: string };
    };
    const { permit2WitnessTypes } = await import("@x402/evm");
    const signature = await agent.signTypedData({
      domain: { name: "Permit2", chainId: 8453, verifyingContract: PERMIT2_ADDRESS },
      types: permit2WitnessTypes,
      primaryType: "PermitWitnessTransferFrom",
      message: {
        permitted: { token: permitted.token, amount: BigInt(permitted.amount) },
        spender: stranger.address,
        nonce: BigInt(nonce),
        deadline: BigInt(deadline),
        witness: { to: witness.to, validAfter: BigInt(witness.validAfter) },
      },
    });
    const respent = { payload: { permit2Authorization: permit, signature } };
    expect(await refusalOfSignedPayment("exact", respent, reserved)).toContain("spender is not x402's proxy");
  });
});

describe("the extensions' signed approvals", () => {
  const permit2Offer = { ...offer, extra: { ...domain, assetTransferMethod: "permit2" } };
  const permitOf = async (signer = agent, spender: `0x${string}` = PERMIT2_ADDRESS, of = token) => ({
    from: signer.address,
    asset: of,
    spender,
    amount: "1250000",
    nonce: "0",
    deadline: "9999999999",
    version: "1",
    signature: await signer.signTypedData({
      domain: { ...domain, chainId: 8453, verifyingContract: of },
      types: EIP2612_PERMIT_TYPES,
      primaryType: "Permit",
      message: { owner: signer.address, spender, value: 1_250_000n, nonce: 0n, deadline: 9_999_999_999n },
    }),
  });
  const approveOf = async (signer = agent, spender: `0x${string}` = PERMIT2_ADDRESS, to = token, chainId = 8453) => ({
    from: signer.address,
    asset: token,
    spender: PERMIT2_ADDRESS,
    amount: maxUint256.toString(),
    version: "1",
    signedTransaction: await signer.signTransaction({
      to,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [spender, maxUint256] }),
      nonce: 0,
      gas: 70_000n,
      maxFeePerGas: 1_000_000_000n,
      maxPriorityFeePerGas: 1_000_000n,
      chainId,
    }),
  });

  test("the agent's permit and approve of the reserved token to Permit2 on this chain: sent", async () => {
    const signed = await exact().createPaymentPayload(2, permit2Offer);
    const extensions = {
      eip2612GasSponsoring: { info: await permitOf() },
      erc20ApprovalGasSponsoring: { info: await approveOf() },
    };
    expect(await refusalOfSignedPayment("exact", { ...signed, extensions }, reserved)).toBeNull();
  });

  test("a permit to another spender, of another token, or not the agent's: refused", async () => {
    const signed = await exact().createPaymentPayload(2, permit2Offer);
    for (const info of [await permitOf(agent, stranger.address), await permitOf(agent, PERMIT2_ADDRESS, otherToken)]) {
      const extensions = { eip2612GasSponsoring: { info } };
      expect(await refusalOfSignedPayment("exact", { ...signed, extensions }, reserved)).toContain("permit");
    }
    const strangers = { eip2612GasSponsoring: { info: await permitOf(stranger) } };
    expect(await refusalOfSignedPayment("exact", { ...signed, extensions: strangers }, reserved)).toContain(
      "not the agent's",
    );
  });

  test("an approve of another spender, token or chain: refused", async () => {
    const signed = await exact().createPaymentPayload(2, permit2Offer);
    for (const [info, why] of [
      [await approveOf(agent, stranger.address), "not an approve of Permit2"],
      [await approveOf(agent, PERMIT2_ADDRESS, otherToken), "another token"],
      [await approveOf(agent, PERMIT2_ADDRESS, token, 56), "another chain"],
    ] as const) {
      const extensions = { erc20ApprovalGasSponsoring: { info } };
      expect(await refusalOfSignedPayment("exact", { ...signed, extensions }, reserved)).toContain(why);
    }
  });

  test("a merchant's own declaration, echoed without a signature, grants nothing and is let through", async () => {
    const signed = await exact().createPaymentPayload(2, permit2Offer);
    const extensions = { eip2612GasSponsoring: { info: { description: "gasless", version: "1" }, schema: {} } };
    expect(await refusalOfSignedPayment("exact", { ...signed, extensions }, reserved)).toBeNull();
  });
});
