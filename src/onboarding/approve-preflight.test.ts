import { describe, expect, test } from "bun:test";
import { encodeFunctionData, maxUint256, parseGwei, parseTransaction, serializeTransaction } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { INSUFFICIENT_FUNDS, intrinsicGas, unacceptableApprove } from "./approve-preflight";
import { approveAbi, readSignedApprove } from "./signed-approve";

const account = privateKeyToAccount(generatePrivateKey());
const token = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const spender = "0x000000000022D473030F116dDEE9F6B43aC78BA3";
const data = encodeFunctionData({ abi: approveAbi, functionName: "approve", args: [spender, maxUint256] });
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const sign = (gas: bigint) =>
  account.signTransaction({
    type: "eip1559",
    chainId: 56,
    to: token,
    data,
    nonce: 0,
    gas,
    maxFeePerGas: parseGwei("1"),
    maxPriorityFeePerGas: parseGwei("0.1"),
  });

const read = async (raw: `0x${string}`) => {
  const result = await readSignedApprove(raw);
  if (!result.ok) throw new Error(result.message);
  return result.approve;
};

describe("what a node refuses whatever the sender holds, read from the signed bytes", () => {
  test("an approve's intrinsic gas is EIP-7623's calldata floor (23,210 for x402's approve of Permit2); one gas under it is refused", async () => {
    expect(intrinsicGas("0x")).toBe(21_000n);
    expect(intrinsicGas("0x0001")).toBe(21_000n + 10n * (1n + 4n));
    const least = intrinsicGas(data);
    expect(least).toBe(23_210n);
    expect(unacceptableApprove(await read(await sign(least)))).toBeNull();
    expect(unacceptableApprove(await read(await sign(least - 1n)))).toMatchObject({ ok: false, code: "gas_too_low" });
  });

  test("the high-s twin of a valid signature recovers the same signer and is refused", async () => {
    const raw = await sign(70_000n);
    const tx = parseTransaction(raw);
    const twin = serializeTransaction(tx as never, {
      r: tx.r as `0x${string}`,
      s: `0x${(N - BigInt(tx.s as string)).toString(16).padStart(64, "0")}`,
      yParity: tx.yParity === 0 ? 1 : 0,
    });
    const approve = await read(twin);
    expect(approve.from).toBe(account.address);
    expect(unacceptableApprove(await read(raw))).toBeNull();
    expect(unacceptableApprove(approve)).toMatchObject({ ok: false, code: "signature" });
  });
});

test("the nodes' words for a sender short of coins, and only those, read as insufficient funds", () => {
  for (const words of [
    "insufficient funds for gas * price + value: balance 0, tx cost 350000000000000, overshot 350000000000000",
    "Insufficient funds for gas * price + value",
    "InsufficientFunds, Account balance: 0, cumulative cost: 350000000000000",
  ])
    expect(INSUFFICIENT_FUNDS.test(words)).toBe(true);
  for (const words of ["transaction underpriced", "intrinsic gas too low", "nonce too high", "invalid sender"])
    expect(INSUFFICIENT_FUNDS.test(words)).toBe(false);
});
