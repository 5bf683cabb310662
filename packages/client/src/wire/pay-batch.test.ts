import { describe, expect, test } from "bun:test";
import { decodeFunctionData } from "viem";
import { erc20Abi, relayerAbi } from "./abis.js";
import { payBatchCalls } from "./pay-batch.js";

const token = "0x1111111111111111111111111111111111111111";
const relayer = "0x2222222222222222222222222222222222222222";
const alice = "0x3333333333333333333333333333333333333333";
const feeRecipient = "0x4444444444444444444444444444444444444444";

describe("payBatchCalls", () => {
  test("approves the relayer for exactly the total, then pays every entry in order through payBatch", () => {
    const [approve, pay] = payBatchCalls({
      token,
      relayer,
      payments: [
        { to: alice, amount: 7n },
        { to: feeRecipient, amount: 3n },
      ],
    });
    expect(approve?.to).toBe(token);
    expect(decodeFunctionData({ abi: erc20Abi, data: approve!.data })).toMatchObject({
      functionName: "approve",
      args: [relayer, 10n],
    });
    expect(pay?.to).toBe(relayer);
    expect(decodeFunctionData({ abi: relayerAbi, data: pay!.data })).toMatchObject({
      functionName: "payBatch",
      args: [token, [alice, feeRecipient], [7n, 3n]],
    });
  });
});
