import { type Address, encodeFunctionData, getAddress, type Hex, isAddressEqual } from "viem";
import { erc20Abi } from "../chain/abis";
import { isExecutionReverted } from "../chain/errors";
import type { NetworkRuntime } from "../chain/networks";
import type { SwapConfig } from "../config/schema";
import { assertOwnerSwapsNotDenied } from "../deny/deny-counters";
import type { ErrorCode } from "../errors";
import { ApiError } from "../errors";
import { shortReason } from "../logger";
import { type Call, encodeBatchExecution } from "../userops/execution";
import { type IssueUserOpDeps, issueUserOp, verifiedAnswer } from "../userops/issue-user-op";
import type { UserOpNetwork } from "../userops/user-op-network";
import { relayerSwapAbi } from "./abis";
import { encodePath } from "./path";
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

export type WalletSwapRequest = {
  walletAddress: string;
  swap: {
    sellToken: string;
    buyToken: string;
    sellAmount: string;
    slippageBps?: number;
    minBuyAmount?: string;
    recipient?: string;
  };
};

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

const invalid = (field: string, message: string, details: Record<string, unknown> = {}) =>
  new ApiError("validation_error", `${field}: ${message}`, { field, ...details });

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
 * The wallet's batch (`callData` of its UserOp) run as the EntryPoint would run it, in one eth_call at the latest
 * block: nothing is signed or sent. A revert is a SwapRefusal (the relayer's InsufficientOutput or the router's
 * own minimum check are "price moved below minBuyAmount"); an unreadable chain is blockchain_error.
 */
export async function simulateWalletBatch(network: UserOpNetwork, wallet: Address, callData: Hex): Promise<void> {
  try {
    await network.runtime.client.call({ account: network.entryPoint, to: wallet, data: callData });
  } catch (error) {
    const data = revertData(error);
    if (data !== undefined) {
      const [code, message] = explainRevert(data);
      throw new SwapRefusal(code, message);
    }
    // A node that says "reverted" without the data: still a swap that would revert, not a chain failure.
    if (isExecutionReverted(error)) {
      throw new SwapRefusal("payment_verification_error", `the swap would revert: ${shortReason(error)}`);
    }
    throw new ApiError("blockchain_error", "failed to simulate the swap", { reason: shortReason(error) });
  }
}

/** The revert data of a failed eth_call (viem keeps the node's `error.data` on a cause), if it reverted. */
function revertData(error: unknown): Hex | undefined {
  let cause: unknown = error;
  for (let depth = 0; cause && depth < 10; depth++) {
    const data = (cause as { data?: unknown }).data;
    if (typeof data === "string" && /^0x([0-9a-f]{2})*$/i.test(data)) return data as Hex;
    if (data && typeof data === "object" && typeof (data as { data?: unknown }).data === "string") {
      return (data as { data: Hex }).data;
    }
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

export type WalletSwapVerifyResponse =
  | (ReturnType<typeof verifiedAnswer> & WalletSwapQuoted & { recipient: Address })
  | ({ isValid: false; payer: Address; invalidReason: ErrorCode; invalidMessage: string } & WalletSwapQuoted);

/** The wallet's batch as its UserOp's callData: what verify simulates and settle simulates again. */
export const walletSwapCallData = (calls: readonly Call[]) => encodeBatchExecution(calls);

type WalletSwapQuoted = {
  buyAmount: string;
  minBuyAmount: string;
  slippageBps: number;
  route: ReturnType<typeof wireRoute>;
  priceImpactBps: number;
};

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
  const quoted: WalletSwapQuoted = {
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
      context: JSON.stringify(context),
      fields: { sender: "walletAddress", balance: "swap.sellAmount" },
      // A swap's gas moves with the pools between the estimate and the bundle (a V2 pair's first trade in a new
      // block writes its price accumulators, a V3 pool its oracle and ticks): an inner call short of gas under
      // the 63/64 rule reverts the UserOp with the paymaster paying. EntryPoint v0.7 charges 10% of unused call gas.
      callGasMarginPercent: WALLET_SWAP_CALL_GAS_MARGIN_PERCENT,
      // Once the wallet passed the kernel's checks, before the bundler and the paymaster see anything.
      async beforeSponsor({ owner }) {
        await assertOwnerSwapsNotDenied(deps.deny, runtime.name, owner);
        // A caller's own minimum above what the best route pays now: no need to simulate.
        if (best.amountOut < minBuyAmount) throw new SwapRefusal("payment_verification_error", PRICE_MOVED, owner);
        await simulateWalletBatch(network, wallet, walletSwapCallData(calls)).catch((error: unknown) => {
          throw error instanceof SwapRefusal ? new SwapRefusal(error.code, error.message, owner) : error;
        });
      },
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
