import { describe, expect, test } from "bun:test";
import { encodeFunctionData, type Hex, maxUint256, parseGwei } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { approveAbi, approveCost, approveMismatch, readSignedApprove } from "./signed-approve";

const account = privateKeyToAccount(generatePrivateKey());
const token = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const spender = "0x000000000022D473030F116dDEE9F6B43aC78BA3";
const approveData = encodeFunctionData({ abi: approveAbi, functionName: "approve", args: [spender, maxUint256] });

const sign = (change: Record<string, unknown> = {}) =>
  account.signTransaction({
    type: "eip1559",
    chainId: 56,
    to: token,
    data: approveData,
    nonce: 3,
    gas: 70_000n,
    maxFeePerGas: parseGwei("1"),
    maxPriorityFeePerGas: parseGwei("0.1"),
    ...change,
  } as never);

const expectation = {
  payer: account.address,
  chainId: 56,
  token,
  spender,
  amount: 10n ** 18n,
  maxGas: 100_000n,
  maxFeePerGas: parseGwei("5"),
} as const;

describe("a signed approve, read and checked without the chain", () => {
  test("x402's approve decodes to its signer, nonce, spender, amount, gas and fee; it costs gas × max fee", async () => {
    const read = await readSignedApprove(await sign());
    if (!read.ok) throw new Error(read.message);
    expect(read.approve).toMatchObject({
      from: account.address,
      chainId: 56,
      nonce: 3,
      token,
      spender,
      amount: maxUint256,
    });
    expect(approveCost(read.approve)).toBe(70_000n * parseGwei("1"));
    expect(approveMismatch(read.approve, expectation)).toBeNull();
  });

  test("anything but a plain approve without value is refused before any check of its fields", async () => {
    const trailing = `${approveData}00` as Hex;
    const cases: [unknown, string][] = [
      ["0x1234", "malformed"],
      [42, "malformed"],
      [await sign({ value: 1n }), "calldata"],
      [await sign({ data: trailing }), "calldata"],
      [await sign({ data: "0xa9059cbb" }), "calldata"],
      [
        await sign({
          type: "eip2930",
          gasPrice: parseGwei("1"),
          maxFeePerGas: undefined,
          maxPriorityFeePerGas: undefined,
        }),
        "malformed",
      ],
    ];
    for (const [raw, code] of cases) expect(await readSignedApprove(raw)).toMatchObject({ ok: false, code });
  });

  test("each field that differs from the payment or passes a cap is named, in the order a client fixes them", async () => {
    const read = await readSignedApprove(await sign({ chainId: 8453, gas: 200_000n }));
    if (!read.ok) throw new Error(read.message);
    expect(approveMismatch(read.approve, expectation)).toMatchObject({ code: "chain" });
    expect(approveMismatch({ ...read.approve, chainId: 56 }, expectation)).toMatchObject({ code: "gas_limit" });
    expect(approveMismatch({ ...read.approve, chainId: 56, gas: 1n, amount: 1n }, expectation)).toMatchObject({
      code: "amount",
    });
    expect(
      approveMismatch({ ...read.approve, chainId: 56, gas: 1n, maxFeePerGas: parseGwei("6") }, expectation),
    ).toMatchObject({
      code: "fee",
    });
  });
});
