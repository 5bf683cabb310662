import { describe, expect, test } from "bun:test";
import { type Address, encodeFunctionData, type Hex } from "viem";
import { Relay402ClientError } from "../errors.js";
import { erc20Abi } from "../wire/abis.js";
import { type Call, encodeBatchExecution } from "../wire/execution.js";
import { privacyPoolAbi } from "../wire/incognito/pool-abi.js";
import type { SolidityProof } from "../wire/incognito/proof.js";
import { fromRpcUserOp, type RpcUserOp, userOpHash } from "../wire/user-operation.js";
import {
  assertUserOpIsShield,
  assertUserOpIsUnshield,
  type ExpectedShield,
  type ExpectedUnshield,
} from "./check-incognito-user-op.js";

const address = (digit: string) => `0x${digit.repeat(40)}` as Address;
const common = {
  sender: address("1"),
  pool: address("2"),
  paymaster: address("4"),
  entryPoint: address("5"),
  chainId: 56,
};
const shield: ExpectedShield = {
  ...common,
  token: address("3"),
  amount: 100n * 10n ** 18n,
  precommitment: 123456789n,
  feeRecipient: address("6"),
  fee: 5n * 10n ** 17n,
};

/** The calls written out by hand here (not the client's builder): approve, shield, fee. */
function shieldBatch(p: { token?: Address; amount?: bigint; precommitment?: bigint; fee?: bigint; pool?: Address }) {
  const token = p.token ?? shield.token;
  const amount = p.amount ?? shield.amount;
  const pool = p.pool ?? shield.pool;
  const calls: Call[] = [
    { to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [pool, amount] }) },
    {
      to: pool,
      data: encodeFunctionData({
        abi: privacyPoolAbi,
        functionName: "shield",
        args: [token, amount, p.precommitment ?? shield.precommitment],
      }),
    },
    {
      to: token,
      data: encodeFunctionData({
        abi: erc20Abi,
        functionName: "transfer",
        args: [shield.feeRecipient, p.fee ?? shield.fee],
      }),
    },
  ];
  return calls;
}

function issued(calls: Call[] | Hex, overrides: Partial<RpcUserOp> = {}) {
  const userOp: RpcUserOp = {
    sender: common.sender,
    nonce: "0x0",
    callData: typeof calls === "string" ? calls : encodeBatchExecution(calls),
    callGasLimit: "0x10000",
    verificationGasLimit: "0x10000",
    preVerificationGas: "0x10000",
    maxFeePerGas: "0x3b9aca00",
    maxPriorityFeePerGas: "0x3b9aca00",
    paymaster: common.paymaster,
    paymasterVerificationGasLimit: "0x10000",
    paymasterPostOpGasLimit: "0x1",
    paymasterData: "0x",
    signature: "0x",
    ...overrides,
  };
  return { userOp, hash: userOpHash(fromRpcUserOp(userOp), common.chainId, common.entryPoint) };
}

function refusal(check: () => void) {
  try {
    check();
  } catch (error) {
    expect(error).toBeInstanceOf(Relay402ClientError);
    expect((error as Relay402ClientError).code).toBe("unexpected_response");
    return (error as Relay402ClientError).details?.field;
  }
  throw new Error("the UserOp was accepted");
}

const shieldRefusal = (op: { userOp: RpcUserOp; hash: Hex }) =>
  refusal(() => assertUserOpIsShield(op.userOp, op.hash, shield));

describe("assertUserOpIsShield", () => {
  test("accepts exactly approve(pool, amount), shield(token, amount, precommitment), the fee", () => {
    const { userOp, hash } = issued(shieldBatch({}));
    expect(() => assertUserOpIsShield(userOp, hash, shield)).not.toThrow();
  });

  test("a zero fee is no transfer at all", () => {
    const { userOp, hash } = issued(shieldBatch({}).slice(0, 2));
    expect(() => assertUserOpIsShield(userOp, hash, { ...shield, fee: 0n })).not.toThrow();
    expect(shieldRefusal(issued(shieldBatch({}).slice(0, 2)))).toBe("userOp.callData");
  });

  test("another precommitment (the service would own the deposit) is refused naming it", () => {
    expect(shieldRefusal(issued(shieldBatch({ precommitment: 987654321n })))).toBe("incognitoData.precommitment");
  });

  test("another token, amount or pool is refused naming it", () => {
    expect(shieldRefusal(issued(shieldBatch({ token: address("7") })))).toBe("incognitoData.token");
    expect(shieldRefusal(issued(shieldBatch({ amount: shield.amount + 1n })))).toBe("incognitoData.amount");
    expect(shieldRefusal(issued(shieldBatch({ pool: address("8") })))).toBe("incognitoData.pool");
  });

  test("a higher fee, an extra call or a larger approval is refused", () => {
    expect(shieldRefusal(issued(shieldBatch({ fee: shield.fee + 1n })))).toBe("userOp.callData");
    const extra = [...shieldBatch({}), { to: address("9"), data: "0x" as Hex }];
    expect(shieldRefusal(issued(extra))).toBe("userOp.callData");
    const calls = shieldBatch({});
    calls[0] = {
      to: shield.token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [shield.pool, 2n ** 255n] }),
    };
    expect(shieldRefusal(issued(calls))).toBe("userOp.callData");
    expect(shieldRefusal(issued("0xdeadbeef"))).toBe("userOp.callData");
  });

  test("another sender, a factory, another paymaster or a hash of something else is refused", () => {
    expect(shieldRefusal(issued(shieldBatch({}), { sender: address("a") }))).toBe("userOp.sender");
    expect(shieldRefusal(issued(shieldBatch({}), { factory: address("b"), factoryData: "0x01" }))).toBe(
      "userOp.factory",
    );
    expect(shieldRefusal(issued(shieldBatch({}), { paymaster: address("c") }))).toBe("userOp.paymaster");
    const { userOp } = issued(shieldBatch({}));
    expect(shieldRefusal({ userOp, hash: issued(shieldBatch({}), { nonce: "0x1" }).hash })).toBe("userOpHash");
  });
});

const proof: SolidityProof = {
  a: ["1", "2"],
  b: [
    ["3", "4"],
    ["5", "6"],
  ],
  c: ["7", "8"],
};
const unshield: ExpectedUnshield = {
  ...common,
  token: address("3"),
  withdrawAmount: 30n,
  recipient: address("d"),
  feeRecipient: address("6"),
  fee: 1n,
  root: 11n,
  nullifierHash: 12n,
  changeCommitment: 13n,
  proof,
};

function unshieldCallOf(p: Partial<ExpectedUnshield>): Call {
  const e = { ...unshield, ...p };
  return {
    to: e.pool,
    data: encodeFunctionData({
      abi: privacyPoolAbi,
      functionName: "unshield",
      args: [
        {
          a: [1n, 2n],
          b: [
            [3n, 4n],
            [5n, 6n],
          ],
          c: [7n, 8n],
        },
        e.root,
        e.nullifierHash,
        e.token,
        e.withdrawAmount,
        e.recipient,
        e.feeRecipient,
        e.fee,
        e.changeCommitment,
      ],
    }),
  };
}

describe("assertUserOpIsUnshield", () => {
  test("accepts exactly one unshield with the client's proof and public values", () => {
    const { userOp, hash } = issued([unshieldCallOf({})]);
    expect(() => assertUserOpIsUnshield(userOp, hash, unshield)).not.toThrow();
  });

  test("any other value, an extra call or another pool is refused", () => {
    const check = (calls: Call[]) => {
      const { userOp, hash } = issued(calls);
      return refusal(() => assertUserOpIsUnshield(userOp, hash, unshield));
    };
    expect(check([unshieldCallOf({ recipient: address("e") })])).toBe("userOp.callData");
    expect(check([unshieldCallOf({ fee: 2n })])).toBe("userOp.callData");
    expect(check([unshieldCallOf({ pool: address("f") })])).toBe("userOp.callData");
    expect(check([unshieldCallOf({}), { to: address("9"), data: "0x" }])).toBe("userOp.callData");
    const { userOp } = issued([unshieldCallOf({})]);
    expect(refusal(() => assertUserOpIsUnshield(userOp, "0x00", unshield))).toBe("userOpHash");
  });
});
