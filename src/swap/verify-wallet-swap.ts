import { erc20Abi } from "@relay402/client/wire/abis";
import type { Call } from "@relay402/client/wire/execution";
import { relayerSwapAbi } from "@relay402/client/wire/swap/abis";
import { encodePath } from "@relay402/client/wire/swap/path";
import type { WalletSwapVerifyBodySchema, WalletSwapVerifyResponseSchema } from "@relay402/client/wire/swap/schemas";
import type { Static } from "@sinclair/typebox";
import { type Address, encodeFunctionData, getAddress, type Hex, isAddressEqual } from "viem";
import type { NetworkRuntime } from "../chain/networks";
import type { SwapConfig } from "../config/schema";
import { assertOwnerSwapsNotDenied } from "../deny/deny-counters";
import type { ErrorCode } from "../errors";
import { ApiError } from "../errors";
import { shortReason } from "../logger";
import { invalid } from "../userops/invalid";
import { type IssueUserOpDeps, issueUserOp, verifiedAnswer } from "../userops/issue-user-op";
import type { SimulatedRevertError } from "../userops/simulate";
import type { UserOpNetwork } from "../userops/user-op-network";
import {
  type BestQuote,
  checkSlippage,
  quoteBestRoute,
  sellTokenConfig,
  signedMinimum,
  swapFeeFor,
  wireRoute,
} from "./quote-swap";
import { type SwapOrder, uint256 } from "./swap-authorization";
import { explainRevert, PRICE_MOVED } from "./verify-swap";

export type WalletSwapRequest = Pick<Static<typeof WalletSwapVerifyBodySchema>, "walletAddress" | "swap">;

/** What settle needs to know about an issued wallet swap besides the UserOp (amounts as decimal strings). */
export type WalletSwapContext = {
  sellToken: Address;
  buyToken: Address;
  sellAmount: string;
  fee: string;
  buyAmount: string;
  minBuyAmount: string;
  recipient: Address;
  router: Address;
  path: Hex;
};

/** Call gas a wallet swap gets over the bundler's estimate (see verifyWalletSwap). */
export const WALLET_SWAP_CALL_GAS_MARGIN_PERCENT = 25;

/** A simulated swap that would revert: the code and message of decisions.md ("price moved below minBuyAmount"). */
export class SwapRefusal extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The wallet's owner, once the kernel read it. */
    readonly owner?: Address,
  ) {
    super(message);
  }
}

/**
 * The wallet's calls: approve the relayer for exactly `sellAmount` (swapBatch pulls it all from msg.sender, pays
 * the fee and approves the router for the rest itself), then `Relayer.swapBatch(order, route)`. The router call is
 * built by the relayer from the whitelisted router's kind; the path is checked there to run sellToken → buyToken.
 */
export function walletSwapCalls(relayer: Address, order: SwapOrder, route: { router: Address; path: Hex }): Call[] {
  return [
    {
      to: order.sellToken,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [relayer, order.sellAmount] }),
    },
    { to: relayer, data: encodeFunctionData({ abi: relayerSwapAbi, functionName: "swapBatch", args: [order, route] }) },
  ];
}

/**
 * A swap whose batch the kernel's simulation reverts: the code and message of decisions.md (the relayer's
 * InsufficientOutput or the router's own minimum check are "price moved below minBuyAmount").
 */
export function swapRefusalOf(revert: SimulatedRevertError, owner?: Address): SwapRefusal {
  if (revert.data === undefined) {
    // A node that says "reverted" without the data: still a swap that would revert.
    return new SwapRefusal("payment_verification_error", `the swap would revert: ${revert.reason}`, owner);
  }
  const [code, message] = explainRevert(revert.data);
  return new SwapRefusal(code, message, owner);
}

export type WalletSwapVerifyResponse = Static<typeof WalletSwapVerifyResponseSchema>;

/**
 * /wallet/swap/verify: the order's own rules (sell token the service takes fees in, a different buy token, an
 * amount above the fee, slippage or minimum), the best route now for sellAmount − fee, then the kernel: the wallet
 * (deployed, ours, owner not denied, holding sellAmount), the batch simulated from the EntryPoint, gas and the
 * paymaster's signature. A route that can no longer pay the minimum is 200 `isValid: false`
 * ("price moved below minBuyAmount") with nothing issued.
 */
export async function verifyWalletSwap(
  deps: IssueUserOpDeps & { network: UserOpNetwork; swap: SwapConfig },
  request: WalletSwapRequest,
): Promise<WalletSwapVerifyResponse> {
  const { network } = deps;
  const runtime: NetworkRuntime = network.runtime;
  const wallet = getAddress(request.walletAddress);
  const body = request.swap;
  const token = sellTokenConfig(runtime, body.sellToken, "swap.sellToken");
  const sellToken = getAddress(token.address);
  const buyToken = getAddress(body.buyToken);
  if (isAddressEqual(sellToken, buyToken)) throw invalid("swap.buyToken", "must differ from sellToken");
  const sellAmount = uint256(body.sellAmount, "swap.sellAmount");
  if (sellAmount === 0n) throw invalid("swap.sellAmount", "must be greater than zero");
  checkSlippage(body, "swap.");
  const fee = swapFeeFor(token, sellAmount);
  if (fee >= sellAmount) throw invalid("swap.sellAmount", `must exceed the swap fee (${fee})`, { fee: fee.toString() });
  const recipient = body.recipient ? getAddress(body.recipient) : wallet;
  // The relayer refuses both (InvalidSwap): the output would be burnt or stay in the relayer.
  if (BigInt(recipient) === 0n || isAddressEqual(recipient, network.relayer)) {
    throw invalid("swap.recipient", "must be neither the zero address nor the relayer");
  }

  let best: BestQuote | undefined;
  try {
    best = await quoteBestRoute(runtime, deps.swap, { sellToken, buyToken, amountIn: sellAmount - fee });
  } catch (error) {
    throw new ApiError("blockchain_error", "failed to quote the swap", { reason: shortReason(error) });
  }
  if (!best) throw invalid("swap.buyToken", `no route from ${sellToken} to ${buyToken} on ${runtime.name}`);
  const { minBuyAmount, slippageBps } = signedMinimum(best.amountOut, body);
  const quoted = {
    buyAmount: best.amountOut.toString(),
    minBuyAmount: minBuyAmount.toString(),
    slippageBps,
    route: wireRoute(best),
    priceImpactBps: best.priceImpactBps,
  };
  const route = { router: best.router, path: encodePath(best.route.kind, best.route.hops) };
  const order: SwapOrder = { sellToken, buyToken, sellAmount, minBuyAmount, recipient, fee };
  const calls = walletSwapCalls(network.relayer, order, route);
  const context: WalletSwapContext = {
    sellToken,
    buyToken,
    sellAmount: sellAmount.toString(),
    fee: fee.toString(),
    buyAmount: quoted.buyAmount,
    minBuyAmount: quoted.minBuyAmount,
    recipient,
    ...route,
  };
  try {
    const issued = await issueUserOp(deps, {
      network,
      sender: wallet,
      spends: { token: sellToken, amount: sellAmount },
      calls,
      kind: "swap",
      context,
      fields: { sender: "walletAddress", balance: "swap.sellAmount" },
      // A swap's gas moves with the pools between the estimate and the bundle (a V2 pair's first trade in a new
      // block writes its price accumulators, a V3 pool its oracle and ticks): an inner call short of gas under
      // the 63/64 rule reverts the UserOp with the paymaster paying. EntryPoint v0.7 charges 10% of unused call gas.
      callGasMarginPercent: WALLET_SWAP_CALL_GAS_MARGIN_PERCENT,
      // Once the wallet passed the kernel's checks, before its simulation, the bundler and the paymaster.
      async beforeSponsor({ owner }) {
        await assertOwnerSwapsNotDenied(deps.deny, runtime.name, owner);
        // A caller's own minimum above what the best route pays now: no need to simulate.
        if (best.amountOut < minBuyAmount) throw new SwapRefusal("payment_verification_error", PRICE_MOVED, owner);
      },
      refuseRevert: swapRefusalOf,
    });
    return { ...verifiedAnswer(issued, fee.toString(), sellAmount.toString()), ...quoted, recipient };
  } catch (error) {
    if (!(error instanceof SwapRefusal)) throw error;
    return {
      isValid: false,
      payer: error.owner ?? wallet,
      invalidReason: error.code,
      invalidMessage: error.message,
      ...quoted,
    };
  }
}
