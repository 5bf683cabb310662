import { type Address, decodeFunctionData, encodeFunctionData, type Hex, isAddressEqual, size, slice } from "viem";
import { assertSwapOrder, type ExpectedSwap, swapFloor } from "./check-swap-quote.js";
import { assertUserOpEnvelope, decodeBatch, refuseUserOp, type UserOpEnvelope } from "./user-op-batch.js";
import { erc20Abi } from "./wire/abis.js";
import { encodeBatchExecution } from "./wire/execution.js";
import { relayerSwapAbi } from "./wire/swap/abis.js";
import type { SwapOrder } from "./wire/swap/typed-data.js";
import type { RpcUserOp } from "./wire/user-operation.js";

export type ExpectedWalletSwap = ExpectedSwap &
  UserOpEnvelope & {
    /** The whitelisted routers of /config: the only ones the swap may go through. */
    routers: readonly { address: Address; kind: "v2" | "v3" }[];
  };

/** The relayer's SwapOrder a wallet swap's UserOp executes (what the owner's signature commits the wallet to). */
export type SignedWalletSwap = { order: SwapOrder; route: { router: Address; path: Hex } };

/** The first and last token of a router path (V2: addresses; V3: address, fee (3 bytes), address, ...). */
function pathEnds(kind: "v2" | "v3", path: Hex): [Address, Address] | undefined {
  const bytes = size(path);
  const ok = kind === "v2" ? bytes >= 40 && bytes % 20 === 0 : bytes >= 43 && (bytes - 20) % 23 === 0;
  if (!ok) return undefined;
  return [slice(path, 0, 20), slice(path, bytes - 20, bytes)];
}

/**
 * Refuses a wallet swap's UserOp from /wallet/swap/verify that is not the swap the caller asked for, before the
 * owner signs its hash, and returns the order it executes. The callData must be the wallet's batch of exactly
 * `sellToken.approve(relayer, sellAmount)` and `relayer.swapBatch(order, route)` (the fee is inside the order,
 * paid by the relayer out of sellAmount): an order with the caller's tokens, amount and recipient, the fee of
 * /config's rule and a minimum not below the caller's floor (its own minimum, or its slippage below the quoted
 * `buyAmount`), a route through a router of /config whose path runs sellToken → buyToken; then the envelope
 * (sender, no factory, paymaster, userOpHash). The router call itself is built by the relayer.
 */
export function assertUserOpIsSwap(
  userOp: RpcUserOp,
  hash: Hex,
  expected: ExpectedWalletSwap,
  quoted: { buyAmount: string },
): SignedWalletSwap {
  const calls = decodeBatch(userOp.callData);
  if (!calls) throw refuseUserOp("userOp.callData", "is not a batch execution of the wallet");
  const swapCall = calls.find((call) => isAddressEqual(call.to, expected.relayer));
  if (!swapCall) throw refuseUserOp("userOp.callData", "does not call the relayer of /config");
  let decoded: SignedWalletSwap | undefined;
  try {
    const { functionName, args } = decodeFunctionData({ abi: relayerSwapAbi, data: swapCall.data });
    if (functionName === "swapBatch") decoded = { order: args[0], route: args[1] } as SignedWalletSwap;
  } catch {}
  if (!decoded) throw refuseUserOp("userOp.callData", "calls the relayer with something other than swapBatch");
  const { order, route } = decoded;
  const floor = swapFloor(expected.bound, BigInt(quoted.buyAmount));
  assertSwapOrder(order, expected, floor, (field, message) => refuseUserOp(`swap.${field}`, `swap ${message}`));

  const router = expected.routers.find((candidate) => isAddressEqual(candidate.address, route.router));
  if (!router) throw refuseUserOp("swap.router", `swaps through ${route.router}, not a router of /config`);
  const ends = pathEnds(router.kind, route.path);
  if (!ends || !isAddressEqual(ends[0], order.sellToken) || !isAddressEqual(ends[1], order.buyToken)) {
    throw refuseUserOp("swap.path", "swaps along a path that does not run from sellToken to buyToken");
  }

  const want = encodeBatchExecution([
    {
      to: expected.sellToken,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [expected.relayer, order.sellAmount] }),
    },
    {
      to: expected.relayer,
      data: encodeFunctionData({ abi: relayerSwapAbi, functionName: "swapBatch", args: [order, route] }),
    },
  ]);
  if (userOp.callData.toLowerCase() !== want.toLowerCase()) {
    throw refuseUserOp(
      "userOp.callData",
      "is not exactly approve(relayer, sellAmount) and swapBatch(order, route): it makes other calls",
    );
  }
  assertUserOpEnvelope(userOp, hash, expected);
  return decoded;
}
