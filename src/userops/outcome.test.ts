import { describe, expect, test } from "bun:test";
import { type Address, encodeAbiParameters, type Hex, pad, toEventSelector } from "viem";
import { outcomeInReceipt, revertReasonIn } from "./outcome";

const ENTRY_POINT: Address = "0x0000000071727De22E5E9d8BAf0edAc6f37da032";
const OTHER: Address = "0x00000000000000000000000000000000000000aa";
const TOKEN: Address = "0x00000000000000000000000000000000000000bb";
const hashA = `0x${"a1".repeat(32)}` as Hex;
const hashB = `0x${"b2".repeat(32)}` as Hex;

const userOpEvent = (address: Address, userOpHash: Hex, success: boolean) => ({
  address,
  topics: [
    toEventSelector(
      "event UserOperationEvent(bytes32 indexed userOpHash, address indexed sender, address indexed paymaster, uint256 nonce, bool success, uint256 actualGasCost, uint256 actualGasUsed)",
    ),
    userOpHash,
    pad(OTHER),
    pad(OTHER),
  ],
  data: encodeAbiParameters(
    [{ type: "uint256" }, { type: "bool" }, { type: "uint256" }, { type: "uint256" }],
    [0n, success, 1n, 1n],
  ),
});
const beforeExecution = {
  address: ENTRY_POINT,
  topics: [toEventSelector("event BeforeExecution()")],
  data: "0x" as Hex,
};
const transfer = (n: bigint) => ({
  address: TOKEN,
  topics: [
    toEventSelector("event Transfer(address indexed from, address indexed to, uint256 value)"),
    pad(OTHER),
    pad(OTHER),
  ],
  data: encodeAbiParameters([{ type: "uint256" }], [n]),
});
const receipt = (logs: { address: Address; topics: Hex[]; data: Hex }[]) => ({
  transactionHash: `0x${"cc".repeat(32)}` as Hex,
  blockNumber: 7n,
  logs,
});

describe("outcomeInReceipt", () => {
  test("each UserOp of a bundle gets the logs between the previous UserOp's event and its own", () => {
    const logs = [beforeExecution, transfer(1n), userOpEvent(ENTRY_POINT, hashA, true), transfer(2n), transfer(3n)];
    logs.push(userOpEvent(ENTRY_POINT, hashB, false));
    const a = outcomeInReceipt(receipt(logs), ENTRY_POINT, hashA);
    const b = outcomeInReceipt(receipt(logs), ENTRY_POINT, hashB);
    expect(a).toMatchObject({ success: true, blockNumber: 7n, logs: [transfer(1n)] });
    expect(b).toMatchObject({ success: false, logs: [transfer(2n), transfer(3n)] });
  });

  test("a transaction without this UserOp's event, or with one from another contract, holds no outcome", () => {
    expect(outcomeInReceipt(receipt([beforeExecution, transfer(1n)]), ENTRY_POINT, hashA)).toBeNull();
    expect(outcomeInReceipt(receipt([transfer(1n), userOpEvent(OTHER, hashA, true)]), ENTRY_POINT, hashA)).toBeNull();
    expect(outcomeInReceipt(receipt([userOpEvent(ENTRY_POINT, hashB, true)]), ENTRY_POINT, hashA)).toBeNull();
  });
});

describe("revertReasonIn", () => {
  const revertReason = (address: Address, userOpHash: Hex, reason: Hex) => ({
    address,
    topics: [
      toEventSelector(
        "event UserOperationRevertReason(bytes32 indexed userOpHash, address indexed sender, uint256 nonce, bytes revertReason)",
      ),
      userOpHash,
      pad(OTHER),
    ],
    data: encodeAbiParameters([{ type: "uint256" }, { type: "bytes" }], [0n, reason]),
  });

  test("the EntryPoint's revert reason among the UserOp's own logs; another contract's event of that name is not it", () => {
    const reason = "0x1234567800000000000000000000000000000000000000000000000000000001" as Hex;
    const reverted = outcomeInReceipt(
      receipt([beforeExecution, revertReason(ENTRY_POINT, hashA, reason), userOpEvent(ENTRY_POINT, hashA, false)]),
      ENTRY_POINT,
      hashA,
    );
    expect(reverted && revertReasonIn(reverted, ENTRY_POINT)).toBe(reason);
    const forged = outcomeInReceipt(
      receipt([beforeExecution, revertReason(OTHER, hashA, reason), userOpEvent(ENTRY_POINT, hashA, false)]),
      ENTRY_POINT,
      hashA,
    );
    expect(forged && revertReasonIn(forged, ENTRY_POINT)).toBeUndefined();
    const silent = outcomeInReceipt(
      receipt([beforeExecution, userOpEvent(ENTRY_POINT, hashA, false)]),
      ENTRY_POINT,
      hashA,
    );
    expect(silent && revertReasonIn(silent, ENTRY_POINT)).toBeUndefined();
  });
});
