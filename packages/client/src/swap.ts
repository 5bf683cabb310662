import type { Static } from "@sinclair/typebox";
import { type Address, getAddress, type Hash, type Hex, type PublicClient, toHex } from "viem";
import { approveRelayer } from "./approve-relayer.js";
import { assertSwapQuote, type SwapBound, type SwapQuote } from "./check-swap-quote.js";
import type { Relay402Client } from "./client.js";
import { Relay402ClientError } from "./errors.js";
import { getNetworkConfig, tokenOf } from "./get-config.js";
import type { NetworkName, SignerClient } from "./types.js";
import type { SwapBodySchema, SwapSettleResponseSchema, SwapVerifyResponseSchema } from "./wire/swap/schemas.js";
import { SWAP_WITH_AUTHORIZATION_TYPES } from "./wire/swap/typed-data.js";

export type SwapBody = Static<typeof SwapBodySchema>;
export type SwapVerifyResult = Static<typeof SwapVerifyResponseSchema>;
export type SwapSettleResult = Static<typeof SwapSettleResponseSchema>;

/** An exact-in swap as the caller asks for it: sell exactly `sellAmount` (fee included) for at least a floor. */
export type SwapOrder = {
  network: NetworkName;
  sellToken: Address;
  buyToken: Address;
  sellAmount: bigint;
  /** Who receives buyToken; default the payer (the EOA, or the wallet for wallet swaps). */
  recipient?: Address;
} & SwapBound;

export type QuoteSwapParameters = SwapOrder & { mode?: "eoa" | "wallet"; from?: Address };

/** `/swap/quote`: the best route's output, the fee and the minimum; mode "eoa" with `from` adds the typed data. */
export function quoteSwap(client: Relay402Client, parameters: QuoteSwapParameters): Promise<SwapQuote> {
  return client.post<SwapQuote>("/swap/quote", {
    network: parameters.network,
    sellToken: parameters.sellToken,
    buyToken: parameters.buyToken,
    sellAmount: parameters.sellAmount.toString(),
    ...(parameters.slippageBps !== undefined ? { slippageBps: parameters.slippageBps } : {}),
    ...(parameters.minBuyAmount !== undefined ? { minBuyAmount: parameters.minBuyAmount.toString() } : {}),
    ...(parameters.recipient ? { recipient: parameters.recipient } : {}),
    ...(parameters.mode ? { mode: parameters.mode } : {}),
    ...(parameters.from ? { from: parameters.from } : {}),
  });
}

export type SwapParameters = SwapOrder & {
  /** Reads the allowance and waits for the approve, sent only when the relayer's allowance is short. */
  publicClient: PublicClient;
  /** Approve this much when the allowance is short (default `sellAmount`). */
  approveAmount?: bigint;
  /** Unix seconds; default two minutes from now (at least twice the service's validBefore margin). */
  validBefore?: number;
  /** Default: 32 random bytes. */
  nonce?: Hex;
};

export type SwapResult = {
  approval: Hash | undefined;
  quote: SwapQuote;
  body: SwapBody;
  verify: SwapVerifyResult;
  settlement: SwapSettleResult;
};

/**
 * An EOA swap: approve the relayer for the sell token if needed, /swap/quote (mode "eoa"), check the quote's
 * SwapWithAuthorization against what was asked and /config (assertSwapQuote: a quote that pays someone else,
 * sells another amount, charges more than the fee rule or accepts less than the caller's floor is refused before
 * anything is signed), sign it, /swap/verify (sent once; `isValid: false` throws with its reason), /swap/settle
 * (retried while pending or unreachable: a repeat answers the first result). The signature binds recipient,
 * minimum, amount, fee, deadline and the route (router and keccak256 of the path); the relayer builds the router
 * call itself and refuses any other route.
 */
export async function swap(
  client: Relay402Client,
  signer: SignerClient,
  parameters: SwapParameters,
): Promise<SwapResult> {
  const config = await getNetworkConfig(client, parameters.network);
  const relayer = config.contracts.relayer;
  const from = signer.account.address;
  const recipient = getAddress(parameters.recipient ?? from);
  const quote = await quoteSwap(client, { ...parameters, recipient, mode: "eoa", from });
  const now = Math.floor(Date.now() / 1000);
  const { authorization, path } = assertSwapQuote(
    quote,
    {
      from,
      sellToken: parameters.sellToken,
      buyToken: parameters.buyToken,
      sellAmount: parameters.sellAmount,
      recipient,
      bound: parameters,
      fees: tokenOf(config, parameters.sellToken).fees,
      relayer,
      chainId: config.chainId,
      domain: config.eip712Domain,
    },
    {
      validAfter: 0,
      validBefore: parameters.validBefore ?? now + Math.max(120, config.limits.validBeforeMarginSeconds * 2),
      nonce: parameters.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32))),
    },
  );
  const approval = await approveRelayer({
    signer,
    publicClient: parameters.publicClient,
    token: parameters.sellToken,
    relayer,
    amount: parameters.sellAmount,
    approveAmount: parameters.approveAmount,
  });
  const signature = await signer.signTypedData({
    account: signer.account,
    domain: config.eip712Domain,
    types: SWAP_WITH_AUTHORIZATION_TYPES,
    primaryType: "SwapWithAuthorization",
    message: authorization,
  });
  const body: SwapBody = {
    swapPayload: {
      authorization: {
        ...authorization,
        sellAmount: authorization.sellAmount.toString(),
        minBuyAmount: authorization.minBuyAmount.toString(),
        fee: authorization.fee.toString(),
        validAfter: Number(authorization.validAfter),
        validBefore: Number(authorization.validBefore),
      },
      signature,
      path,
    },
    swapRequirements: { network: parameters.network, relayerContract: relayer },
  };
  const verify = await verifySwap(client, body);
  return { approval, quote, body, verify, settlement: await settleSwap(client, body) };
}

/** `/swap/verify`; an invalid swap (a price moved below the minimum, an expired one) throws with its reason. */
export async function verifySwap(client: Relay402Client, body: SwapBody): Promise<SwapVerifyResult> {
  const result = await client.post<SwapVerifyResult>("/swap/verify", body);
  if (!result.isValid) {
    throw new Relay402ClientError(
      (result.invalidReason ?? "payment_verification_error") as Relay402ClientError["code"],
      result.invalidMessage ?? "swap is not valid",
      result.buyAmount !== undefined ? { buyAmount: result.buyAmount } : undefined,
    );
  }
  return result;
}

/** `/swap/settle`, idempotent per (network, from, nonce): retried on network errors and while pending. */
export function settleSwap(client: Relay402Client, body: SwapBody): Promise<SwapSettleResult> {
  return client.post<SwapSettleResult>("/swap/settle", body, { idempotent: true });
}
