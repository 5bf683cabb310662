import { describe, expect, test } from "bun:test";
import { type Address, type Hex, keccak256 } from "viem";
import {
  assertSwapQuote,
  type ExpectedEoaSwap,
  expectedSwapFee,
  type SwapQuote,
  swapFloor,
} from "./check-swap-quote.js";
import { Relay402ClientError } from "./errors.js";
import { SWAP_WITH_AUTHORIZATION_TYPES } from "./wire/swap/typed-data.js";

const address = (digit: string) => `0x${digit.repeat(40)}` as Address;
const relayer = address("3");
const expected: ExpectedEoaSwap = {
  from: address("1"),
  sellToken: address("a"),
  buyToken: address("b"),
  sellAmount: 40_000_000n,
  recipient: address("c"),
  bound: { slippageBps: 100 },
  // 30 bps, minimum 0.01 of a 6-decimal token: ceil(40e6 × 30 / 1e4) = 120,000.
  fees: { feeBps: 50, minFee: "10000", swapFeeBps: 30, swapMinFee: "10000" },
  relayer,
  chainId: 56,
  domain: { name: "relay402", version: "1", chainId: 56, verifyingContract: relayer },
};
const signing = { validAfter: 0, validBefore: 1_900_000_000, nonce: `0x${"42".repeat(32)}` as Hex };
const router = address("9");
/** The V3 path sell token, fee 500 (0x0001f4), buy token, packed by hand. */
const path = `${expected.sellToken}0001f4${expected.buyToken.slice(2)}` as Hex;

/** The answer of /swap/quote in mode eoa, written out field by field (not the service's builder). */
function quote(change: { message?: Record<string, unknown>; top?: Partial<SwapQuote> } = {}): SwapQuote {
  return {
    network: "bsc",
    sellToken: expected.sellToken,
    buyToken: expected.buyToken,
    sellAmount: "40000000",
    fee: "120000",
    buyAmount: "1000000",
    minBuyAmount: "990000",
    slippageBps: 100,
    route: [{ dex: "uniswap-v3", kind: "v3", tokenIn: expected.sellToken, tokenOut: expected.buyToken, fee: 500 }],
    router,
    path,
    priceImpactBps: 3,
    validBefore: 1_800_000_000,
    relayerContract: relayer,
    typedData: {
      domain: { name: "relay402", version: "1", chainId: 56, verifyingContract: relayer },
      types: { SwapWithAuthorization: [...SWAP_WITH_AUTHORIZATION_TYPES.SwapWithAuthorization] },
      primaryType: "SwapWithAuthorization",
      message: {
        from: expected.from,
        sellToken: expected.sellToken,
        buyToken: expected.buyToken,
        sellAmount: "40000000",
        minBuyAmount: "990000",
        recipient: expected.recipient,
        fee: "120000",
        router,
        routeHash: keccak256(path),
        validAfter: 1_700_000_000,
        validBefore: 1_800_000_000,
        nonce: `0x${"11".repeat(32)}`,
        ...change.message,
      },
    },
    ...change.top,
  };
}

function refusal(answer: SwapQuote, want: ExpectedEoaSwap = expected) {
  try {
    assertSwapQuote(answer, want, signing);
  } catch (error) {
    expect(error).toBeInstanceOf(Relay402ClientError);
    expect((error as Relay402ClientError).code).toBe("unexpected_response");
    return (error as Relay402ClientError).details?.field;
  }
  throw new Error("the quote was accepted");
}

describe("assertSwapQuote", () => {
  test("accepts the quote of what was asked and returns the client's own message: the quote's minimum, its own window and nonce", () => {
    expect(assertSwapQuote(quote(), expected, signing)).toEqual({
      authorization: {
        from: expected.from,
        sellToken: expected.sellToken,
        buyToken: expected.buyToken,
        sellAmount: 40_000_000n,
        minBuyAmount: 990_000n,
        recipient: expected.recipient,
        fee: 120_000n,
        router,
        routeHash: keccak256(path),
        validAfter: 0n,
        validBefore: 1_900_000_000n,
        nonce: signing.nonce,
      },
      path,
    });
    // A minimum above the floor is the payer's gain, and addresses compare case-insensitively.
    const higher = quote({ message: { minBuyAmount: "999999", recipient: expected.recipient.toUpperCase() } });
    expect(assertSwapQuote(higher, expected, signing).authorization.minBuyAmount).toBe(999_999n);
  });

  test("refuses a route signed other than shown: another path, fee tier or router, or a path that is not the route's", () => {
    const otherPath = `${expected.sellToken}000bb8${expected.buyToken.slice(2)}` as Hex;
    expect(refusal(quote({ message: { routeHash: keccak256(otherPath) } }))).toBe("typedData.message.routeHash");
    expect(refusal(quote({ message: { router: address("8") } }))).toBe("typedData.message.routeHash");
    // The path sent beside the signature must be the packed form of the route shown (fee 3000 is not fee 500).
    expect(refusal(quote({ top: { path: otherPath }, message: { routeHash: keccak256(otherPath) } }))).toBe("path");
    const reversed = [
      { dex: "uniswap-v3", kind: "v3" as const, tokenIn: expected.buyToken, tokenOut: expected.sellToken, fee: 500 },
    ];
    expect(refusal(quote({ top: { route: reversed } }))).toBe("path");
  });

  test("refuses another recipient, a minimum below the caller's slippage, another amount, tokens or payer", () => {
    expect(refusal(quote({ message: { recipient: address("d") } }))).toBe("typedData.message.recipient");
    // floor(1,000,000 × 9,900 / 10,000) = 990,000: one unit less is refused.
    expect(refusal(quote({ message: { minBuyAmount: "989999" } }))).toBe("typedData.message.minBuyAmount");
    expect(refusal(quote({ message: { minBuyAmount: "0" } }))).toBe("typedData.message.minBuyAmount");
    expect(refusal(quote({ message: { sellAmount: "40000001" } }))).toBe("typedData.message.sellAmount");
    expect(refusal(quote({ message: { sellToken: address("d") } }))).toBe("typedData.message.sellToken");
    expect(refusal(quote({ message: { buyToken: address("d") } }))).toBe("typedData.message.buyToken");
    expect(refusal(quote({ message: { from: address("d") } }))).toBe("typedData.message.from");
  });

  test("refuses a fee other than /config's rule, higher or lower", () => {
    expect(expectedSwapFee(expected.fees, expected.sellAmount)).toBe(120_000n);
    expect(refusal(quote({ message: { fee: "120001" } }))).toBe("typedData.message.fee");
    expect(refusal(quote({ message: { fee: "119999" } }))).toBe("typedData.message.fee");
    // Swap fees default to the payment fees: 50 bps of 40e6 = 200,000.
    expect(expectedSwapFee({ feeBps: 50, minFee: "10000" }, expected.sellAmount)).toBe(200_000n);
    // The minimum fee applies to small swaps.
    expect(expectedSwapFee(expected.fees, 1_000_000n)).toBe(10_000n);
  });

  test("an absolute minimum is the floor whatever the quoted buyAmount says", () => {
    const want = { ...expected, bound: { minBuyAmount: 995_000n } };
    expect(refusal(quote(), want)).toBe("typedData.message.minBuyAmount");
    expect(
      assertSwapQuote(quote({ message: { minBuyAmount: "995000" } }), want, signing).authorization.minBuyAmount,
    ).toBe(995_000n);
    // The slippage floor follows the quote (default 50 bps).
    expect(swapFloor({}, 1_000_000n)).toBe(995_000n);
    expect(swapFloor({ slippageBps: 500 }, 1_000_001n)).toBe(950_000n);
  });

  test("refuses another relayer, domain, chain or signed type", () => {
    expect(refusal(quote({ top: { relayerContract: address("4") } }))).toBe("relayerContract");
    const base = quote();
    const typedData = base.typedData!;
    const withTypedData = (change: Partial<NonNullable<SwapQuote["typedData"]>>) =>
      quote({ top: { typedData: { ...typedData, ...change } } });
    expect(refusal(withTypedData({ domain: { ...typedData.domain, chainId: 8453 } }))).toBe("typedData.domain");
    expect(refusal(withTypedData({ domain: { ...typedData.domain, verifyingContract: address("4") } }))).toBe(
      "typedData.domain",
    );
    expect(refusal(withTypedData({ domain: { ...typedData.domain, name: "other" } }))).toBe("typedData.domain");
    const types = { SwapWithAuthorization: typedData.types.SwapWithAuthorization!.slice(1) };
    expect(refusal(withTypedData({ types }))).toBe("typedData.types");
    const extra = { ...typedData.types, Other: [{ name: "x", type: "uint256" }] };
    expect(refusal(withTypedData({ types: extra }))).toBe("typedData.types");
    expect(refusal(quote({ top: { typedData: undefined } }))).toBe("typedData");
  });
});
