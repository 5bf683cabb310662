// The client's check of a wallet swap's UserOp against the service's own builder of that batch: they must agree.
import { describe, expect, test } from "bun:test";
import { assertUserOpIsSwap, type ExpectedWalletSwap, Relay402ClientError } from "@relay402/client";
import { erc20Abi } from "@relay402/client/wire/abis";
import { type Call, encodeBatchExecution } from "@relay402/client/wire/execution";
import { relayerSwapAbi } from "@relay402/client/wire/swap/abis";
import { fromRpcUserOp, type RpcUserOp, userOpHash } from "@relay402/client/wire/user-operation";
import { concat, encodeFunctionData, getAddress, type Hex, maxUint256 } from "viem";
import { walletSwapCalls } from "./verify-wallet-swap";

const address = (digit: string) => getAddress(`0x${digit.repeat(40)}`);
const v2Router = address("7");
const v3Router = address("8");
const expected: ExpectedWalletSwap = {
  sender: address("1"),
  paymaster: address("4"),
  entryPoint: address("5"),
  chainId: 56,
  relayer: address("3"),
  sellToken: address("a"),
  buyToken: address("b"),
  sellAmount: 10n ** 19n,
  recipient: address("c"),
  bound: { slippageBps: 50 },
  // 50 bps of 10 tokens = 0.05 token.
  fees: { feeBps: 50, minFee: "10000000000000000" },
  routers: [
    { address: v2Router, kind: "v2" },
    { address: v3Router, kind: "v3" },
  ],
};
const quoted = { buyAmount: "2000000" };
// floor(2,000,000 × 9,950 / 10,000)
const floor = 1_990_000n;
const order = {
  sellToken: expected.sellToken,
  buyToken: expected.buyToken,
  sellAmount: expected.sellAmount,
  minBuyAmount: floor,
  recipient: expected.recipient,
  fee: 5n * 10n ** 16n,
};
// V3, two hops through a connector: sellToken, 500, connector, 3000, buyToken.
const v3Path = concat([
  expected.sellToken,
  "0x0001f4",
  address("d"),
  "0x000bb8",
  expected.buyToken,
]).toLowerCase() as Hex;
const route = { router: v3Router, path: v3Path };

/** The wallet's batch written out here by hand: approve, then swapBatch. */
function calls(p: { order?: Partial<typeof order>; route?: Partial<typeof route>; approve?: bigint } = {}): Call[] {
  return [
    {
      to: expected.sellToken,
      data: encodeFunctionData({
        abi: erc20Abi,
        functionName: "approve",
        args: [expected.relayer, p.approve ?? expected.sellAmount],
      }),
    },
    {
      to: expected.relayer,
      data: encodeFunctionData({
        abi: relayerSwapAbi,
        functionName: "swapBatch",
        args: [
          { ...order, ...p.order },
          { ...route, ...p.route },
        ],
      }),
    },
  ];
}

function issued(batch: Call[] | Hex, overrides: Partial<RpcUserOp> = {}) {
  const userOp: RpcUserOp = {
    sender: expected.sender,
    nonce: "0x0",
    callData: typeof batch === "string" ? batch : encodeBatchExecution(batch),
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

function refusal(batch: Call[] | Hex, want: ExpectedWalletSwap = expected, overrides: Partial<RpcUserOp> = {}) {
  const { userOp, hash } = issued(batch, overrides);
  try {
    assertUserOpIsSwap(userOp, hash, want, quoted);
  } catch (error) {
    expect(error).toBeInstanceOf(Relay402ClientError);
    expect((error as Relay402ClientError).code).toBe("unexpected_response");
    return (error as Relay402ClientError).details?.field;
  }
  throw new Error("the UserOp was accepted");
}

describe("assertUserOpIsSwap", () => {
  test("accepts approve + swapBatch of exactly the order asked for, and returns the order and route it signs", () => {
    const { userOp, hash } = issued(calls());
    expect(assertUserOpIsSwap(userOp, hash, expected, quoted)).toEqual({ order, route });
    // A V2 path through the V2 router; a minimum above the floor.
    const v2 = issued(
      calls({
        order: { minBuyAmount: floor + 1n },
        route: { router: v2Router, path: concat([expected.sellToken, expected.buyToken]) },
      }),
    );
    expect(assertUserOpIsSwap(v2.userOp, v2.hash, expected, quoted).order.minBuyAmount).toBe(floor + 1n);
  });

  test("accepts the batch the service builds (walletSwapCalls), byte for byte what the client expects", () => {
    const { userOp, hash } = issued(walletSwapCalls(expected.relayer, order, route));
    expect(assertUserOpIsSwap(userOp, hash, expected, quoted)).toEqual({ order, route });
  });

  test("refuses an order for another recipient, a minimum below the floor, another amount, fee or token", () => {
    expect(refusal(calls({ order: { recipient: address("e") } }))).toBe("swap.recipient");
    expect(refusal(calls({ order: { minBuyAmount: floor - 1n } }))).toBe("swap.minBuyAmount");
    expect(refusal(calls({ order: { sellAmount: expected.sellAmount + 1n } }))).toBe("swap.sellAmount");
    expect(refusal(calls({ order: { fee: order.fee + 1n } }))).toBe("swap.fee");
    expect(refusal(calls({ order: { buyToken: address("e") } }))).toBe("swap.buyToken");
    expect(refusal(calls({ order: { sellToken: address("e") } }))).toBe("swap.sellToken");
    // The caller's own minimum is the floor, whatever the quote says.
    expect(refusal(calls(), { ...expected, bound: { minBuyAmount: floor + 1n } })).toBe("swap.minBuyAmount");
  });

  test("refuses a router not in /config and a path that does not run sellToken → buyToken", () => {
    expect(refusal(calls({ route: { router: address("9") } }))).toBe("swap.router");
    const wrongEnd = concat([expected.sellToken, "0x0001f4", address("e")]);
    expect(refusal(calls({ route: { path: wrongEnd } }))).toBe("swap.path");
    // A V3 path on the V2 router does not parse as a V2 path.
    expect(refusal(calls({ route: { router: v2Router } }))).toBe("swap.path");
  });

  test("refuses any other call in the batch: a larger approval, an extra transfer, a missing approve", () => {
    expect(refusal(calls({ approve: maxUint256 }))).toBe("userOp.callData");
    const drain: Call = {
      to: expected.sellToken,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [address("e"), 1n] }),
    };
    expect(refusal([...calls(), drain])).toBe("userOp.callData");
    expect(refusal([calls()[1]!])).toBe("userOp.callData");
    expect(refusal([calls()[0]!])).toBe("userOp.callData");
    expect(refusal("0x1234")).toBe("userOp.callData");
  });

  test("refuses another sender, paymaster, or a userOpHash of another UserOp", () => {
    expect(refusal(calls(), expected, { sender: address("e") })).toBe("userOp.sender");
    expect(refusal(calls(), expected, { paymaster: address("e") })).toBe("userOp.paymaster");
    const { userOp } = issued(calls());
    const other = issued(calls({ order: { minBuyAmount: floor + 5n } }));
    expect(() => assertUserOpIsSwap(userOp, other.hash, expected, quoted)).toThrow(/userOpHash/);
  });
});
