import { quoterV2Abi, relayerSwapAbi, v2RouterAbi } from "@relay402/client/wire/swap/abis";
import { SWAP_WITH_AUTHORIZATION_TYPES } from "@relay402/client/wire/swap/typed-data";
import {
  type Address,
  decodeErrorResult,
  decodeFunctionResult,
  encodeFunctionData,
  type Hex,
  hashTypedData,
  isAddressEqual,
  parseAbi,
} from "viem";
import { MULTICALL3 } from "../chain/addresses";
import type { NetworkRuntime } from "../chain/networks";
import { relayerOf } from "../config/capabilities";
import type { SwapConfig } from "../config/schema";
import type { ErrorCode } from "../errors";
import { ApiError } from "../errors";
import { shortReason } from "../logger";
import type { RelayerDomain } from "../settlement/relayer-port";
import { isPayerSignature } from "./payer-signature";
import { decodeAggregate3, encodeAggregate3 } from "./quote-plan";
import { sellTokenConfig, swapFeeFor } from "./quote-swap";
import { isPriceMove } from "./revert-cause";
import type { SwapAuthorization, SwapRoute } from "./swap-authorization";

/** What the simulation and the chain may revert with, beside the relayer's own errors. */
const revertAbi = [
  ...relayerSwapAbi,
  ...parseAbi([
    "error AuthorizationNotYetValid()",
    "error AuthorizationExpired()",
    "error AuthorizationAlreadyUsed(address authorizer, bytes32 nonce)",
    "error InvalidSignature()",
    "error TokenNotWhitelisted(address token)",
    "error EnforcedPause()",
    "error SafeERC20FailedOperation(address token)",
    "error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)",
    "error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)",
  ]),
];

export const PRICE_MOVED = "price moved below minBuyAmount";

export type SwapVerdict =
  | { isValid: true; payer: Address; buyAmount: bigint }
  | {
      isValid: false;
      payer: Address;
      invalidReason: ErrorCode;
      invalidMessage: string;
      buyAmount?: bigint;
      details?: Record<string, unknown>;
    };

export type SwapVerifyContext = {
  network: NetworkRuntime;
  swap: SwapConfig;
  now: () => bigint;
  domain(): Promise<RelayerDomain>;
  isPayerDenied(payer: Address): Promise<boolean>;
};

/** The relayer call of this swap through its signed `route` (the relayer never takes caller calldata). */
export function swapCallData(auth: SwapAuthorization, signature: Hex, route: SwapRoute): Hex {
  return encodeFunctionData({
    abi: relayerSwapAbi,
    functionName: "swapWithAuthorization",
    args: [auth, signature, route],
  });
}

/**
 * decisions.md "Swaps": the relayer, the sell token, the signature (a body changed after signing does not
 * recover to `from`), the validity window, the fee against the rule, then the settlement itself simulated in
 * one eth_call on the signed route (`route`, whose path parseSwapAuthorization matched to the signed routeHash):
 * its output, or why it would fail ("price moved below minBuyAmount" when the route can no longer pay the signed
 * minimum). One RPC round trip, two for a contract payer (its ERC-1271 answer).
 */
export async function verifySwap(
  context: SwapVerifyContext,
  auth: SwapAuthorization,
  signature: Hex,
  route: SwapRoute,
  relayerContract: string,
): Promise<SwapVerdict> {
  const { network } = context;
  const payer = auth.from;
  const refuse = (
    invalidReason: ErrorCode,
    invalidMessage: string,
    extra: { buyAmount?: bigint; details?: Record<string, unknown> } = {},
  ): SwapVerdict => ({
    isValid: false,
    payer,
    invalidReason,
    invalidMessage,
    ...extra,
  });
  const relayer = relayerOf(network, "swaps");
  if (!isAddressEqual(relayerContract as Address, relayer)) {
    return refuse(
      "payment_verification_error",
      `relayerContract is not this network's relayer (${relayer}): sign for, approve and name that relayer`,
      { details: { relayerContract: relayer } },
    );
  }
  const token = sellTokenConfig(network, auth.sellToken, "swapPayload.authorization.sellToken");

  const domain = await context.domain().catch((error) => {
    throw new ApiError("blockchain_error", "failed to read the relayer's EIP-712 domain", {
      reason: shortReason(error),
    });
  });
  // An EOA's signature is checked offline; a contract payer (a smart wallet) by its ERC-1271 isValidSignature.
  const digest = hashTypedData({
    domain,
    types: SWAP_WITH_AUTHORIZATION_TYPES,
    primaryType: "SwapWithAuthorization",
    message: auth,
  });
  let signed: boolean;
  try {
    signed = await isPayerSignature(network.client, payer, digest, signature);
  } catch (error) {
    throw new ApiError("blockchain_error", "failed to ask the payer's ERC-1271 isValidSignature", {
      reason: shortReason(error),
    });
  }
  if (!signed) {
    return refuse(
      "signature_error",
      "signature is not authorization.from's: it does not recover to it and, for a contract payer, its ERC-1271 isValidSignature refuses it (the swap was changed after signing or signed for another domain)",
      {
        details: { expectedDomain: domain },
      },
    );
  }

  const now = context.now();
  if (now < auth.validAfter) return refuse("payment_verification_error", "authorization not yet valid");
  const margin = BigInt(network.config.validBeforeMarginSeconds);
  if (auth.validBefore < now + margin) {
    return refuse(
      "payment_verification_error",
      `authorization expired or expires too soon: validBefore must be at least ${margin} s after now`,
    );
  }
  if (auth.sellAmount === 0n) return refuse("payment_verification_error", "sellAmount must be above zero");
  const ruleFee = swapFeeFor(token, auth.sellAmount);
  if (auth.fee < ruleFee) {
    return refuse("payment_verification_error", `fee must be at least ${ruleFee} for this sellAmount`, {
      details: { minimumFee: ruleFee.toString() },
    });
  }
  if (auth.fee >= auth.sellAmount) return refuse("payment_verification_error", "fee must be below sellAmount");
  if (await context.isPayerDenied(payer)) {
    return refuse("payment_verification_error", "payer refused: too many of its settlements reverted on-chain");
  }

  let result: { success: boolean; returnData: Hex };
  try {
    const { data } = await network.client.call({
      to: MULTICALL3,
      data: encodeAggregate3([{ target: relayer, allowFailure: true, callData: swapCallData(auth, signature, route) }]),
    });
    result = decodeAggregate3(data ?? "0x")[0] as { success: boolean; returnData: Hex };
  } catch (error) {
    throw new ApiError("blockchain_error", "failed to simulate the swap", { reason: shortReason(error) });
  }
  if (result.success) {
    const buyAmount = decodeFunctionResult({
      abi: relayerSwapAbi,
      functionName: "swapWithAuthorization",
      data: result.returnData,
    });
    return { isValid: true, payer, buyAmount };
  }
  const [reason, message] = explainRevert(result.returnData);
  if (message !== PRICE_MOVED) return refuse(reason, message);
  const buyAmount = await quoteSignedRoute(network, context.swap, route, auth.sellAmount - auth.fee).catch(
    () => undefined,
  );
  return refuse(reason, message, buyAmount === undefined ? {} : { buyAmount });
}

/**
 * What the signed route pays now for `amountIn` (a price-moved refusal shows it): the V2 router's getAmountsOut,
 * or QuoterV2 for the V3 router of the config; undefined for a router the config does not name.
 */
async function quoteSignedRoute(
  network: NetworkRuntime,
  swap: SwapConfig,
  route: SwapRoute,
  amountIn: bigint,
): Promise<bigint | undefined> {
  const kind = swap.routers.find((router) => isAddressEqual(router.address, route.router))?.kind;
  if (kind === "v2") {
    const tokens = (route.path.slice(2).match(/.{40}/g) ?? []).map((token) => `0x${token}` as Address);
    const amounts = await network.client.readContract({
      address: route.router,
      abi: v2RouterAbi,
      functionName: "getAmountsOut",
      args: [amountIn, tokens],
    });
    return amounts.at(-1);
  }
  if (kind !== "v3" || !swap.quoter) return undefined;
  const { result } = await network.client.simulateContract({
    address: swap.quoter,
    abi: quoterV2Abi,
    functionName: "quoteExactInput",
    args: [route.path, amountIn],
  });
  return result[0];
}

/** A simulated or mined swap's revert, as the code and message verify answers. */
export function explainRevert(data: Hex): [ErrorCode, string] {
  let name = "";
  let args: readonly unknown[] = [];
  try {
    const decoded = decodeErrorResult({ abi: revertAbi, data });
    name = decoded.errorName as string;
    args = (decoded.args ?? []) as readonly unknown[];
  } catch {
    return ["payment_verification_error", `the swap would revert (${data.slice(0, 10)})`];
  }
  // The relayer's minimum, or the routers' own check of the same minimum first.
  if (isPriceMove(name, args)) return ["payment_verification_error", PRICE_MOVED];
  switch (name) {
    case "Error":
      return ["payment_verification_error", `the swap would revert: ${String(args[0])}`];
    case "RouteNotSigned":
      return ["signature_error", "the route is not the one the authorization signed (router, routeHash)"];
    case "AuthorizationAlreadyUsed":
      return ["nonce_error", "nonce already used or canceled"];
    case "InvalidSignature":
      return ["signature_error", "signature is not authorization.from's (neither ECDSA nor its ERC-1271 answer)"];
    case "AuthorizationExpired":
      return ["payment_verification_error", "authorization expired"];
    case "AuthorizationNotYetValid":
      return ["payment_verification_error", "authorization not yet valid"];
    case "ERC20InsufficientAllowance":
      return ["payment_verification_error", `allowance too low: approve the relayer for at least ${String(args[2])}`];
    case "ERC20InsufficientBalance":
      return ["payment_verification_error", `balance too low: the swap needs ${String(args[2])}`];
    default:
      return ["payment_verification_error", `the swap would revert: ${name}`];
  }
}
