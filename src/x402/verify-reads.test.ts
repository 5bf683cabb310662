import { describe, expect, test } from "bun:test";
import { decodeFunctionData, encodeFunctionData, encodeFunctionResult, type Hex, parseAbi } from "viem";
import { MULTICALL3 } from "../chain/addresses";
import { aggregate3Call, aggregate3Results } from "./verify-reads";

const abi = parseAbi([
  "struct Call3 { address target; bool allowFailure; bytes callData; }",
  "struct Result { bool success; bytes returnData; }",
  "function aggregate3(Call3[] calls) payable returns (Result[] returnData)",
]);

const calls = [
  { target: "0x0000000000000000000000000000000000000001", data: `0x${"11".repeat(128)}` },
  { target: "0x5FbDB2315678afecb367f032d93F642f64180aa3", data: `0xe94a0102${"22".repeat(64)}` },
  { target: "0x5FbDB2315678afecb367f032d93F642f64180aa3", data: `0x70a08231${"33".repeat(32)}` },
] as const;

describe("aggregate3, by hand", () => {
  test("the call is viem's encoding of aggregate3 with every call allowed to fail", () => {
    const expected = encodeFunctionData({
      abi,
      functionName: "aggregate3",
      args: [calls.map(({ target, data }) => ({ target, allowFailure: true, callData: data }))],
    });
    const call = aggregate3Call(calls);
    expect(call.to).toBe(MULTICALL3);
    expect(call.data).toBe(expected);
    expect(decodeFunctionData({ abi, data: call.data }).args[0]).toHaveLength(3);
    // Call data whose length is not a multiple of 32 bytes is padded.
    const odd = [{ target: calls[0].target, data: "0xabcdef" as Hex }];
    expect(aggregate3Call(odd).data).toBe(
      encodeFunctionData({
        abi,
        functionName: "aggregate3",
        args: [[{ target: calls[0].target, allowFailure: true, callData: "0xabcdef" }]],
      }),
    );
  });

  test("the answer decodes as viem decodes it: return data, or null for a failed call", () => {
    const results = [
      { success: true, returnData: `0x${"00".repeat(12)}${"ab".repeat(20)}` as Hex },
      { success: false, returnData: "0x08c379a0" as Hex },
      { success: true, returnData: "0x" as Hex },
      { success: true, returnData: `0x${"07".repeat(33)}` as Hex },
    ];
    const answer = encodeFunctionResult({ abi, functionName: "aggregate3", result: results });
    expect(aggregate3Results(answer, 4)).toEqual([results[0]?.returnData, null, "0x", results[3]?.returnData] as never);
  });

  test("an answer of another shape throws instead of answering", () => {
    const answer = encodeFunctionResult({
      abi,
      functionName: "aggregate3",
      result: [{ success: true, returnData: "0x01" }],
    });
    expect(() => aggregate3Results(answer, 3)).toThrow();
    expect(() => aggregate3Results("0x", 1)).toThrow();
    expect(() => aggregate3Results(answer.slice(0, 200) as Hex, 1)).toThrow();
  });
});
