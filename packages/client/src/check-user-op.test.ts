import { describe, expect, test } from "bun:test";
import type { Address, Hex } from "viem";
import { assertUserOpIsPayment, type ExpectedUserOp } from "./check-user-op.js";
import { Relay402ClientError } from "./errors.js";
import { encodeBatchExecution } from "./wire/execution.js";
import { payBatchCalls } from "./wire/pay-batch.js";
import { fromRpcUserOp, type RpcUserOp, userOpHash } from "./wire/user-operation.js";

const address = (digit: string) => `0x${digit.repeat(40)}` as Address;
const expected: ExpectedUserOp = {
  sender: address("1"),
  token: address("2"),
  relayer: address("3"),
  paymaster: address("4"),
  entryPoint: address("5"),
  chainId: 56,
  payments: [
    { to: address("6"), amount: 1000n },
    { to: address("7"), amount: 10n },
  ],
};

/** A UserOp as the service would issue it, paying `payments`, and its hash. */
function issued(payments = expected.payments, overrides: Partial<RpcUserOp> = {}) {
  const userOp: RpcUserOp = {
    sender: expected.sender,
    nonce: "0x0",
    callData: encodeBatchExecution(payBatchCalls({ token: expected.token, relayer: expected.relayer, payments })),
    callGasLimit: "0x10000",
    verificationGasLimit: "0x10000",
    preVerificationGas: "0x10000",
    maxFeePerGas: "0x3b9aca00",
    maxPriorityFeePerGas: "0x3b9aca00",
    paymaster: expected.paymaster,
    paymasterVerificationGasLimit: "0x10000",
    paymasterPostOpGasLimit: "0x1",
    paymasterData: "0x",
    signature: "0x",
    ...overrides,
  };
  return { userOp, hash: userOpHash(fromRpcUserOp(userOp), expected.chainId, expected.entryPoint) };
}

function refusal(userOp: RpcUserOp, hash: Hex) {
  try {
    assertUserOpIsPayment(userOp, hash, expected);
  } catch (error) {
    expect(error).toBeInstanceOf(Relay402ClientError);
    const clientError = error as Relay402ClientError;
    expect(clientError.code).toBe("unexpected_response");
    return clientError.details?.field;
  }
  throw new Error("the UserOp was accepted");
}

describe("assertUserOpIsPayment", () => {
  test("accepts the UserOp paying exactly the transfers and the fee, with its own hash", () => {
    const { userOp, hash } = issued();
    expect(() => assertUserOpIsPayment(userOp, hash, expected)).not.toThrow();
  });

  test("refuses a UserOp that pays someone else, more, an extra transfer, or leaves out the fee", () => {
    const [payment, fee] = expected.payments as [ExpectedUserOp["payments"][0], ExpectedUserOp["payments"][0]];
    for (const payments of [
      [{ ...payment, to: address("8") }, fee],
      [{ ...payment, amount: 1001n }, fee],
      [payment, fee, { to: address("8"), amount: 1n }],
      [payment],
      [fee, payment],
    ]) {
      const { userOp, hash } = issued(payments);
      expect(refusal(userOp, hash)).toBe("userOp.callData");
    }
  });

  test("refuses another sender, a factory, another paymaster", () => {
    const other = issued(expected.payments, { sender: address("9") });
    expect(refusal(other.userOp, other.hash)).toBe("userOp.sender");
    const factory = issued(expected.payments, { factory: address("a"), factoryData: "0x12" });
    expect(refusal(factory.userOp, factory.hash)).toBe("userOp.factory");
    const paymaster = issued(expected.payments, { paymaster: address("b") });
    expect(refusal(paymaster.userOp, paymaster.hash)).toBe("userOp.paymaster");
  });

  test("refuses a userOpHash of another UserOp: the owner signs the hash, not the fields shown", () => {
    const { userOp } = issued();
    const elsewhere = issued([{ to: address("8"), amount: 1010n }]);
    expect(refusal(userOp, elsewhere.hash)).toBe("userOpHash");
    const otherChain = userOpHash(fromRpcUserOp(userOp), 8453, expected.entryPoint);
    expect(refusal(userOp, otherChain)).toBe("userOpHash");
  });
});
