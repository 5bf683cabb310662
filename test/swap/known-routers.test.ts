// The real routers a forked devnet uses (src/swap/known-routers.ts), checked without a network: nothing here can
// fork a chain, so the preset is held against the service's own schema, the npm build artifacts, and pool
// addresses that exist on bsc and base; the devnet's forked wiring is checked by calling its builders.
import { describe, expect, test } from "bun:test";
import { v2PairAddress, v3PoolAddress } from "@relay402/client/wire/swap/quote-math";
import { type Address, getAddress, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devnetSwapSetup, uniswapInitCodeHashes } from "../../scripts/devnet/dex-plan";
import { devnetKeys } from "../../scripts/devnet/keys";
import { configFromManifest } from "../../scripts/devnet/service-config";
import type { DevnetManifest, DevnetNetwork } from "../../scripts/devnet/start";
import type { NetworkName } from "../../src/config/schema";
import { type PresetSwap, presetOf } from "../../src/networks";
import { BASE_USDC, BASE_WETH, UNISWAP_V2_BASE, UNISWAP_V3_BASE } from "../../src/networks/presets/base";
import { BSC_USDT, BSC_WBNB, PANCAKESWAP_V3_BSC } from "../../src/networks/presets/bsc";
import { knownSwap, knownSwapConfig } from "../../src/swap/known-routers";

/** The preset's DEX of `network` (the test fails here if it has none). */
function presetSwap(network: NetworkName): PresetSwap {
  const swap = knownSwap(network);
  if (!swap) throw new Error(`${network} has no DEX preset`);
  return swap;
}

const address = (n: number) => getAddress(`0x${n.toString(16).padStart(40, "0")}`);

/** A manifest as start.ts writes it for a devnet whose networks are forks (no `dex`, `forked: true`). */
function forkedManifest(forked: Partial<Record<NetworkName, boolean>>): DevnetManifest {
  const network = (name: NetworkName, chainId: number, offset: number): DevnetNetwork => ({
    chainId,
    rpcUrl: "http://127.0.0.1:1",
    bundlerUrl: "http://127.0.0.1:2",
    entryPoint: "0x0000000071727De22E5E9d8BAf0edAc6f37da032",
    relayer: address(offset + 1),
    factory: address(offset + 2),
    accountImplementation: address(offset + 3),
    paymaster: address(offset + 4),
    privacyPool: address(offset + 5),
    feeRecipient: privateKeyToAccount(devnetKeys.feeRecipient).address,
    tokens: {
      [name === "bsc" ? "USDT" : "USDC"]: {
        address: address(offset + 6),
        decimals: 18,
        eip3009: false,
        eip2612: false,
        kind: "plain",
      },
      ...(forked[name]
        ? {
            [presetSwap(name).wrappedNative.symbol]: {
              address: presetSwap(name).wrappedNative.address,
              decimals: 18,
              eip3009: false,
              eip2612: false,
              kind: "plain",
            },
          }
        : {}),
    },
    ...(forked[name] ? { forked: true as const } : {}),
  });
  return {
    service: "http://127.0.0.1:4020",
    adminApiKey: "relay402-devnet-admin-key",
    networks: { bsc: network("bsc", 56, 0x100), base: network("base", 8453, 0x200) },
    accounts: [],
  };
}

/** The preset's router `index` of `network` (the test fails here if it has no such router). */
function routerOf(network: NetworkName, index: number): { factory: Address; initCodeHash: Hex } {
  const router = presetSwap(network).routers[index];
  if (!router) throw new Error(`${network} has no router ${index}`);
  return router;
}

describe("the real routers' preset", () => {
  test("parses with the service's config schema for both networks, with the values it was given", () => {
    const config = configFromManifest(forkedManifest({ bsc: true, base: true }));
    for (const name of ["bsc", "base"] as const) {
      const swap = config.networks[name]?.swap;
      const preset = presetSwap(name);
      expect(swap).toBeDefined();
      const fields = (r: { name?: string; kind: string; address: Address; factory: Address; initCodeHash: Hex }) => [
        r.name,
        r.kind,
        r.address,
        r.factory,
        r.initCodeHash,
      ];
      expect((swap?.routers ?? []).map(fields)).toEqual(preset.routers.map(fields));
      expect(swap?.quoter).toBe(preset.quoter as Address);
      expect(swap?.connectors).toEqual(preset.connectors);
      expect(swap?.wrappedNative).toBe(preset.wrappedNative.address);
      expect(config.networks[name]?.chainId).toBe(presetOf(name).chainId);
    }
    const [pancakeV2, pancakeV3] = config.networks.bsc?.swap?.routers ?? [];
    expect(pancakeV2?.feeBps).toBe(25);
    expect(pancakeV3?.feeTiers).toEqual([100, 500, 2500, 10000]);
    const [uniswapV2, uniswapV3] = config.networks.base?.swap?.routers ?? [];
    expect(uniswapV2?.feeBps).toBe(30);
    expect(uniswapV3?.feeTiers).toEqual([100, 500, 3000, 10000]);
  });

  test("Uniswap's init-code hashes are keccak256 of the pair and pool creation code in the npm artifacts", () => {
    const published = uniswapInitCodeHashes();
    expect(UNISWAP_V2_BASE.initCodeHash).toBe(published.v2);
    expect(UNISWAP_V3_BASE.initCodeHash).toBe(published.v3);
  });

  // Pool addresses that hold liquidity on the real chains (PancakeSwap's own frontend lists the 0.01% WBNB/USDT
  // pool; the others are the chains' reference WBNB/USDT and WETH/USDC pools). Computed here from the preset's
  // factory (pool deployer), init-code hash and token addresses the way quoting does: one wrong value of the
  // four gives another address.
  test("the preset computes the real WBNB/USDT pools on bsc and WETH/USDC pools on base", () => {
    const [pancakeV2, pancakeV3] = [routerOf("bsc", 0), routerOf("bsc", 1)];
    expect(v2PairAddress(pancakeV2.factory, pancakeV2.initCodeHash, BSC_WBNB, BSC_USDT)).toBe(
      "0x16b9a82891338f9bA80E2D6970FddA79D1eb0daE",
    );
    expect(v3PoolAddress(pancakeV3.factory, pancakeV3.initCodeHash, BSC_WBNB, BSC_USDT, 100)).toBe(
      "0x172fcD41E0913e95784454622d1c3724f546f849",
    );
    expect(v3PoolAddress(pancakeV3.factory, pancakeV3.initCodeHash, BSC_USDT, BSC_WBNB, 500)).toBe(
      "0x36696169C63e42cd08ce11f5deeBbCeBae652050",
    );
    // PancakeSwap V3 deploys pools from its PoolDeployer: the factory address computes nothing that exists.
    expect(pancakeV3.factory).toBe(PANCAKESWAP_V3_BSC.poolDeployer);
    expect(v3PoolAddress(PANCAKESWAP_V3_BSC.factory, pancakeV3.initCodeHash, BSC_WBNB, BSC_USDT, 100)).not.toBe(
      "0x172fcD41E0913e95784454622d1c3724f546f849",
    );

    const [uniswapV2, uniswapV3] = [routerOf("base", 0), routerOf("base", 1)];
    expect(v2PairAddress(uniswapV2.factory, uniswapV2.initCodeHash, BASE_WETH, BASE_USDC)).toBe(
      "0x88A43bbDF9D098eEC7bCEda4e2494615dfD9bB9C",
    );
    expect(v3PoolAddress(uniswapV3.factory, uniswapV3.initCodeHash, BASE_WETH, BASE_USDC, 500)).toBe(
      "0xd0b53D9277642d899DF5C87A3966A349A798F224",
    );
    expect(v3PoolAddress(uniswapV3.factory, uniswapV3.initCodeHash, BASE_USDC, BASE_WETH, 3000)).toBe(
      "0x6c561B446416E1A00E8E93E221854d6eA4171372",
    );
  });

  test("knownSwapConfig hands out a copy", () => {
    const copy = knownSwapConfig("bsc");
    if (!copy) throw new Error("bsc has a DEX preset");
    copy.connectors.pop();
    (copy.routers[1] as { feeTiers: number[] }).feeTiers.push(3000);
    expect(presetSwap("bsc").connectors).toEqual([BSC_WBNB, BSC_USDT]);
    expect(presetSwap("bsc").routers[1]?.feeTiers).toEqual([100, 500, 2500, 10000]);
    // The testnets have no DEX preset: swaps there are configured by hand.
    expect(knownSwapConfig("bsc-testnet")).toBeUndefined();
    expect(knownSwapConfig("base-sepolia")).toBeUndefined();
  });
});

describe("a forked devnet", () => {
  test("the service config of a forked network swaps on the preset; a devnet network without a DEX has no swaps", () => {
    const config = configFromManifest(forkedManifest({ base: true }));
    expect(config.networks.base?.swap?.routers.map((r) => r.address)).toEqual([
      UNISWAP_V2_BASE.router,
      UNISWAP_V3_BASE.router,
    ]);
    // Sellable: the wrapped native token the fork lists is a token of the network, with its swap fee.
    const weth = config.networks.base?.tokens.find((t) => t.address === BASE_WETH);
    expect(weth?.symbol).toBe("WETH");
    expect(weth?.swapFeeBps).toBe(30);
    // bsc here is neither a fork nor has a DEX in the manifest: swaps stay off there.
    expect(config.networks.bsc?.swap).toBeUndefined();
  });

  test("the relayer's swap setup on a fork whitelists the wrapped native token and the real routers with their kinds", () => {
    for (const name of ["bsc", "base"] as const) {
      const setup = devnetSwapSetup(name);
      expect(setup.tokens.map((token) => token.address)).toEqual([presetSwap(name).wrappedNative.address]);
      expect(setup.routers).toEqual(presetSwap(name).routers.map((r) => ({ address: r.address, kind: r.kind })));
    }
    // Without a fork the devnet's own DEX is whitelisted, none of the real routers.
    const devnet = devnetSwapSetup().routers.map((router) => router.address);
    for (const name of ["bsc", "base"] as const)
      for (const router of presetSwap(name).routers) expect(devnet).not.toContain(router.address);
  });
});
