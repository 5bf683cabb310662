import { describe, expect, test } from "bun:test";
import type { Address } from "viem";
import {
  bestRoute,
  candidateRoutes,
  minBuyAmount,
  priceImpactBps,
  type Route,
  swapFee,
  v2AmountOut,
  v2MidPrice,
  v2PairAddress,
  v2RouteAmountOut,
  v3MidPrice,
  v3PoolAddress,
} from "./quote-math.js";

const random = (bits: number) => {
  const bytes = crypto.getRandomValues(new Uint8Array(Math.ceil(bits / 8)));
  return bytes.reduce((acc, byte) => (acc << 8n) | BigInt(byte), 0n) % (1n << BigInt(bits));
};

const A: Address = "0x1111111111111111111111111111111111111111";
const B: Address = "0x2222222222222222222222222222222222222222";
const C: Address = "0x3333333333333333333333333333333333333333";
const D: Address = "0x4444444444444444444444444444444444444444";

describe("v2AmountOut", () => {
  test("is Uniswap's 997/1000 formula at 30 bps and PancakeSwap's 9975/10000 at 25 bps", () => {
    for (let i = 0; i < 500; i++) {
      const [amountIn, reserveIn, reserveOut] = [random(100) + 1n, random(112) + 1n, random(112) + 1n];
      const uniswap = (amountIn * 997n * reserveOut) / (reserveIn * 1000n + amountIn * 997n);
      const pancake = (amountIn * 9975n * reserveOut) / (reserveIn * 10000n + amountIn * 9975n);
      expect(v2AmountOut(amountIn, reserveIn, reserveOut, 30)).toBe(uniswap);
      expect(v2AmountOut(amountIn, reserveIn, reserveOut, 25)).toBe(pancake);
    }
  });

  test("is zero for an empty pair or a zero input, and a route chains its hops", () => {
    expect(v2AmountOut(0n, 10n, 10n, 30)).toBe(0n);
    expect(v2AmountOut(10n, 0n, 10n, 30)).toBe(0n);
    expect(v2AmountOut(10n, 10n, 0n, 30)).toBe(0n);
    const hop1 = { reserveIn: 10n ** 24n, reserveOut: 10n ** 21n };
    const hop2 = { reserveIn: 10n ** 21n, reserveOut: 10n ** 24n };
    const first = v2AmountOut(10n ** 20n, hop1.reserveIn, hop1.reserveOut, 30);
    expect(v2RouteAmountOut(10n ** 20n, [hop1, hop2], 30)).toBe(
      v2AmountOut(first, hop2.reserveIn, hop2.reserveOut, 30),
    );
  });
});

describe("pair and pool addresses from init-code hashes", () => {
  const USDC: Address = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48";
  const WETH: Address = "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2";

  test("Uniswap V2 and V3 on Ethereum mainnet: USDC/WETH, in either order", () => {
    const v2 = [
      "0x5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f",
      "0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f",
    ] as const;
    expect(v2PairAddress(...v2, USDC, WETH)).toBe("0xB4e16d0168e52d35CaCD2c6185b44281Ec28C9Dc");
    expect(v2PairAddress(...v2, WETH, USDC)).toBe("0xB4e16d0168e52d35CaCD2c6185b44281Ec28C9Dc");
    const v3 = [
      "0x1F98431c8aD98523631AE4a59f267346ea31F984",
      "0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54",
    ] as const;
    expect(v3PoolAddress(...v3, WETH, USDC, 500)).toBe("0x88e6A0c2dDD26FEEb64F039a2c41296FcB3f5640");
    expect(v3PoolAddress(...v3, USDC, WETH, 3000)).toBe("0x8ad599c3A0ff1De082011EFDDc58f1908eb6e6D8");
  });

  test("PancakeSwap V2 on BNB Chain (its own init-code hash): WBNB/BUSD", () => {
    expect(
      v2PairAddress(
        "0xcA143Ce32Fe78f1f7019d7d551a6402fC5350c73",
        "0x00fb7f630766e6a796048ea87d01acd3068e8ff67d078148a3fa3f4a84f69bd5",
        "0xe9e7CEA3DedcA5984780Bafc599bD69ADd087D56",
        "0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c",
      ),
    ).toBe("0x58F876857a02D6762E0101bb5C46A8c1ED44Dc16");
  });
});

describe("mid price and price impact", () => {
  const Q96 = 1n << 96n;

  test("a V3 mid price reads sqrtPriceX96 in the hop's direction", () => {
    // token0 = A (lower address); sqrtPrice 2 -> 4 token1 per token0.
    expect(v3MidPrice(2n * Q96, A, B)).toEqual({ num: 4n * Q96 * Q96, den: Q96 * Q96 });
    expect(v3MidPrice(2n * Q96, B, A)).toEqual({ num: Q96 * Q96, den: 4n * Q96 * Q96 });
  });

  test("a tiny V2 trade's impact is the LP fee; a trade of 1% of the reserve adds about 1%", () => {
    const [reserveIn, reserveOut] = [10n ** 24n, 3n * 10n ** 21n];
    const mid = v2MidPrice(reserveIn, reserveOut);
    const tiny = 10n ** 15n;
    expect(priceImpactBps(tiny, v2AmountOut(tiny, reserveIn, reserveOut, 30), [mid])).toBe(30); // 30.00007 bps
    const large = reserveIn / 100n;
    const impact = priceImpactBps(large, v2AmountOut(large, reserveIn, reserveOut, 30), [mid]);
    // 1 - 0.997 / (1 + 0.00997) = 1.2836%
    expect(impact).toBe(128);
  });

  test("two hops multiply their mid prices; an output at or above the mid price has no impact", () => {
    const mids = [
      { num: 1n, den: 1000n },
      { num: 2000n, den: 1n },
    ];
    expect(priceImpactBps(1000n, 2000n, mids)).toBe(0);
    expect(priceImpactBps(1000n, 2100n, mids)).toBe(0);
    expect(priceImpactBps(1000n, 1990n, mids)).toBe(50);
    expect(priceImpactBps(0n, 0n, mids)).toBe(0);
  });
});

describe("routes", () => {
  test("direct and two-hop candidates through each connector, V3 with every pair of fee tiers", () => {
    const routes = candidateRoutes({
      sellToken: A,
      buyToken: B,
      connectors: [C, D, A, C],
      v2: true,
      v3FeeTiers: [500, 3000],
    });
    const v2 = routes.filter((route) => route.kind === "v2");
    const v3 = routes.filter((route) => route.kind === "v3");
    expect(v2.map((route) => route.hops.map((hop) => hop.tokenOut))).toEqual([[B], [C, B], [D, B]]);
    expect(v3).toHaveLength(2 + 2 * 4);
    expect(v3.filter((route) => route.hops.length === 1).map((route) => route.hops[0]?.fee)).toEqual([500, 3000]);
    for (const route of routes) {
      expect(route.hops[0]?.tokenIn).toBe(A);
      expect(route.hops.at(-1)?.tokenOut).toBe(B);
      if (route.hops.length === 2) expect(route.hops[0]?.tokenOut).toBe(route.hops[1]?.tokenIn as Address);
    }
    expect(candidateRoutes({ sellToken: A, buyToken: B, connectors: [], v2: false, v3FeeTiers: [] })).toEqual([]);
    expect(candidateRoutes({ sellToken: A, buyToken: A, connectors: [C], v2: true, v3FeeTiers: [500] })).toEqual([]);
  });

  test("the best route has the most output; ties go to fewer hops, then V2; no output never wins", () => {
    const direct3: Route = { kind: "v3", hops: [{ tokenIn: A, tokenOut: B, fee: 500 }] };
    const direct2: Route = { kind: "v2", hops: [{ tokenIn: A, tokenOut: B }] };
    const twoHop: Route = {
      kind: "v2",
      hops: [
        { tokenIn: A, tokenOut: C },
        { tokenIn: C, tokenOut: B },
      ],
    };
    expect(
      bestRoute([
        { route: direct2, amountOut: 5n },
        { route: twoHop, amountOut: 6n },
      ])?.route,
    ).toBe(twoHop);
    expect(
      bestRoute([
        { route: twoHop, amountOut: 6n },
        { route: direct3, amountOut: 6n },
      ])?.route,
    ).toBe(direct3);
    expect(
      bestRoute([
        { route: direct3, amountOut: 6n },
        { route: direct2, amountOut: 6n },
      ])?.route,
    ).toBe(direct2);
    expect(bestRoute([{ route: direct2, amountOut: 0n }])).toBeUndefined();
    expect(bestRoute([])).toBeUndefined();
  });
});

describe("fee and minimum", () => {
  test("fee = max(swapMinFee, ceil(sellAmount × swapFeeBps / 10000))", () => {
    expect(swapFee(1000n, 50, 0n)).toBe(5n);
    expect(swapFee(1001n, 50, 0n)).toBe(6n); // 5.005 rounds up
    expect(swapFee(1000n, 50, 7n)).toBe(7n);
    expect(swapFee(10n ** 18n, 30, 10n ** 16n)).toBe(10n ** 16n);
    expect(swapFee(10n ** 22n, 30, 10n ** 16n)).toBe(3n * 10n ** 19n);
  });

  test("minBuyAmount = floor(buyAmount × (10000 − slippageBps) / 10000)", () => {
    expect(minBuyAmount(10_000n, 50)).toBe(9_950n);
    expect(minBuyAmount(10_001n, 50)).toBe(9_950n); // 9950.995 rounds down
    expect(minBuyAmount(123n, 0)).toBe(123n);
    expect(() => minBuyAmount(1n, 10_001)).toThrow();
    expect(() => minBuyAmount(1n, 1.5)).toThrow();
  });
});
