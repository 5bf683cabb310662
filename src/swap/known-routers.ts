import type { Address, Hex } from "viem";
import type { NetworkConfigInput, NetworkName } from "../config/schema";

/**
 * The real DEX deployments on bsc and base, as a network's `swap` config spells them: what a forked devnet uses
 * (scripts/devnet/start.ts with BSC_RPC_URL / BASE_RPC_URL) and what a production config can copy. Every value
 * was read from the DEX's own published deployment list or source, named beside it (repository, path, commit);
 * none is derived here. Two traps these values avoid:
 * - the relayer builds the router call itself (contracts/Relayer.sol): V2 is Router02's
 *   `swapExactTokensForTokens(amountIn, min, path, to, deadline)`, V3 is SwapRouter02's `exactInput({path,
 *   recipient, amountIn, amountOutMinimum})` without a deadline field. PancakeSwap's V3-only "SwapRouter"
 *   (0x1b81D678…) has Uniswap's original struct with a deadline and would be called wrongly; its Smart Router
 *   has the SwapRouter02 layout. (The Smart Router's own V2 function has no deadline, so V2 stays on
 *   PancakeRouter.)
 * - pools are computed, never looked up (packages/client/src/wire/swap/quote-math.ts): a V3 router's `factory` is the address the
 *   pools are CREATE2-deployed from. On PancakeSwap V3 that is the PancakeV3PoolDeployer, not the
 *   PancakeV3Factory (PancakeSwap's own PoolAddress.computeAddress takes the deployer).
 * The init-code hashes of the Uniswap deployments equal keccak256 of the pair/pool creation code in the npm
 * artifacts the devnet deploys (checked by known-routers.test.ts); PancakeSwap's pair and pool are its own
 * builds, so theirs are taken from its source only.
 */

type SwapConfigInput = NonNullable<NetworkConfigInput["swap"]>;

// --- bsc (chain 56): PancakeSwap ---

/**
 * Wrapped BNB. Source: pancakeswap/pancake-frontend packages/swap-sdk/src/constants.ts (WBNB[ChainId.BSC]) and
 * pancakeswap/pancake-smart-contracts projects/exchange-protocol/config.ts (WBNB.mainnet).
 */
export const BSC_WBNB: Address = "0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c";
/**
 * Tether USD on bsc (18 decimals), PancakeSwap's reference stablecoin there. Source: pancakeswap/pancake-frontend
 * packages/tokens/src/constants/common.ts (USDT_BSC, STABLE_COIN[ChainId.BSC]).
 */
export const BSC_USDT: Address = "0x55d398326f99059fF775485246999027B3197955";

/**
 * PancakeSwap V2 on bsc.
 * - router (PancakeRouter, Router02-compatible): pancakeswap/pancake-developer
 *   docs/pages/contracts/exchange/v2/router-v2.md (BSC) and pancakeswap/pancake-smart-contracts
 *   projects/exchange-protocol/config.ts (PancakeRouter.mainnet).
 * - factory (PancakeFactory): pancakeswap/pancake-developer docs/pages/contracts/exchange/v2/factory-v2.md (BSC)
 *   and pancakeswap/pancake-frontend packages/swap-sdk/src/constants.ts (FACTORY_ADDRESS_MAP[ChainId.BSC]).
 * - init-code hash: pancakeswap/pancake-frontend packages/swap-sdk/src/constants.ts (INIT_CODE_HASH_MAP[ChainId.BSC])
 *   and pancakeswap/pancake-v3-contracts projects/router/contracts/libraries/SmartRouterHelper.sol (the "// BSC"
 *   V2_INIT_CODE_HASH), commit ffa4fb2cef38cf4769ff88e1cc5551c4af4f6c57.
 * - fee 25 bps: getAmountOut multiplies by 9975/10000 (pancakeswap/pancake-smart-contracts
 *   projects/exchange-protocol/contracts/libraries/PancakeLibrary.sol; `_9975` in the swap-sdk constants).
 */
export const PANCAKESWAP_V2_BSC = {
  router: "0x10ED43C718714eb63d5aA57B78B54704E256024E" as Address,
  factory: "0xcA143Ce32Fe78f1f7019d7d551a6402fC5350c73" as Address,
  initCodeHash: "0x00fb7f630766e6a796048ea87d01acd3068e8ff67d078148a3fa3f4a84f69bd5" as Hex,
  feeBps: 25,
};

/**
 * PancakeSwap V3 on bsc. Addresses: pancakeswap/pancake-v3-contracts deployments/bscMainnet.json (commit
 * ffa4fb2cef38cf4769ff88e1cc5551c4af4f6c57), the same in pancakeswap/pancake-developer
 * docs/pages/contracts/exchange/v3/addresses.md.
 * - router: "SmartRouter"; its V3 part implements projects/router/contracts/interfaces/IV3SwapRouter.sol, whose
 *   ExactInputParams is (path, recipient, amountIn, amountOutMinimum): the call the relayer builds.
 * - poolDeployer: "PancakeV3PoolDeployer", what pool addresses are computed from
 *   (projects/v3-periphery/contracts/libraries/PoolAddress.sol computeAddress(deployer, key)); the factory
 *   ("PancakeV3Factory", 0x0BFbCF9f…) is listed for reference only and must not be configured as `factory`.
 * - initCodeHash: POOL_INIT_CODE_HASH of that PoolAddress.sol, also pancakeswap/pancake-frontend
 *   packages/v3-sdk/src/constants.ts.
 * - quoter: "QuoterV2" (projects/router/contracts/lens/QuoterV2.sol: quoteExactInput(bytes, uint256) with the
 *   Uniswap QuoterV2 return layout).
 * - fee tiers 100/500/2500/10000: FeeAmount in pancakeswap/pancake-frontend packages/v3-sdk/src/constants.ts.
 */
export const PANCAKESWAP_V3_BSC = {
  router: "0x13f4EA83D0bd40E75C8222255bc855a974568Dd4" as Address,
  factory: "0x0BFbCF9fa4f9C56B0F40a671Ad40E0805A091865" as Address,
  poolDeployer: "0x41ff9AA7e16B8B1a8a8dc4f0eFacd93D02d071c9" as Address,
  initCodeHash: "0x6ce8eb472fa82df5469c6ab6d485f17c3ad13c8cd7af59b3d4a8026c5ce0f7e2" as Hex,
  quoter: "0xB048Bbc1Ee6b733FFfCFb9e9CeF7375518e25997" as Address,
  feeTiers: [100, 500, 2500, 10000],
};

// --- base (chain 8453): Uniswap ---

/**
 * WETH on base (the OP-stack predeploy). Source: Uniswap/docs docs/contracts/v3/reference/deployments/
 * Base-Deployments.md ("Wrapped Native Token Addresses") and pancakeswap/pancake-frontend
 * packages/swap-sdk-evm/src/constants.ts (WETH9[ChainId.BASE]).
 */
export const BASE_WETH: Address = "0x4200000000000000000000000000000000000006";
/**
 * Circle's USDC on base (6 decimals). Source: pancakeswap/pancake-frontend packages/tokens/src/constants/common.ts
 * (USDC[ChainId.BASE], STABLE_COIN[ChainId.BASE]).
 */
export const BASE_USDC: Address = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

/**
 * Uniswap V2 on base (v2-core's factory and v2-periphery's Router02 as published).
 * - router and factory: Uniswap/docs docs/contracts/v2/reference/smart-contracts/08-deployment-addresses.md
 *   (Base), the same in Uniswap/sdks sdks/sdk-core/src/addresses.ts (V2_ROUTER_ADDRESSES / V2_FACTORY_ADDRESSES
 *   [ChainId.BASE]), commit 241fb9a7896f6ca52c984a421ea6c397178215bd.
 * - init-code hash: Uniswap/sdks sdks/v2-sdk/src/constants.ts INIT_CODE_HASH (used for every chain by
 *   computePairAddress), the hash in @uniswap/v2-periphery's UniswapV2Library.pairFor; equals keccak256 of
 *   @uniswap/v2-core's UniswapV2Pair bytecode.
 * - fee 30 bps: Router02's getAmountOut (997/1000).
 */
export const UNISWAP_V2_BASE = {
  router: "0x4752ba5DBc23f44D87826276BF6Fd6b1C372aD24" as Address,
  factory: "0x8909Dc15e40173Ff4699343b6eB8132c65e18eC6" as Address,
  initCodeHash: "0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f" as Hex,
  feeBps: 30,
};

/**
 * Uniswap V3 on base. Addresses: Uniswap/docs docs/contracts/v3/reference/deployments/Base-Deployments.md
 * (UniswapV3Factory, QuoterV2, SwapRouter02), the same in Uniswap/sdks sdks/sdk-core/src/addresses.ts
 * (BASE_ADDRESSES: v3CoreFactoryAddress, quoterAddress, swapRouter02Address), commit
 * 241fb9a7896f6ca52c984a421ea6c397178215bd.
 * - initCodeHash: Uniswap/sdks sdks/v3-sdk/src/constants.ts poolInitCodeHash (the default for every chain but
 *   zkSync) and @uniswap/v3-periphery's PoolAddress.POOL_INIT_CODE_HASH; equals keccak256 of @uniswap/v3-core's
 *   UniswapV3Pool bytecode. Uniswap V3 computes pools from the factory itself.
 * - fee tiers 100/500/3000/10000: FeeAmount's LOWEST, LOW, MEDIUM and HIGH in that v3-sdk constants.ts (the
 *   schema's DEFAULT_V3_FEE_TIERS); a tier without a pool for a pair costs one failed quote in the multicall.
 */
export const UNISWAP_V3_BASE = {
  router: "0x2626664c2603336E57B271c5C0b26F421741e481" as Address,
  factory: "0x33128a8fC17869897dcE68Ed026d694621f6FDfD" as Address,
  initCodeHash: "0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54" as Hex,
  quoter: "0x3d4e44Eb1374240CE5F1B871ab261CD16335B76a" as Address,
  feeTiers: [100, 500, 3000, 10000],
};

/** A network's wrapped native token as a payment token (what a fork whitelists and lists beside its own). */
export type KnownWrappedNative = { symbol: string; address: Address; decimals: number };

/**
 * The `swap` config of each network's real routers, and its chain id (the preset is wrong on any other chain).
 * Two-hop routes go through the wrapped native token and the chain's main stablecoin, the pairs with the
 * deepest pools on both DEXes.
 */
export const KNOWN_SWAP: Record<
  NetworkName,
  { chainId: number; wrappedNative: KnownWrappedNative; swap: SwapConfigInput }
> = {
  bsc: {
    chainId: 56,
    wrappedNative: { symbol: "WBNB", address: BSC_WBNB, decimals: 18 },
    swap: {
      routers: [
        {
          name: "pancakeswap-v2",
          address: PANCAKESWAP_V2_BSC.router,
          kind: "v2",
          factory: PANCAKESWAP_V2_BSC.factory,
          initCodeHash: PANCAKESWAP_V2_BSC.initCodeHash,
          feeBps: PANCAKESWAP_V2_BSC.feeBps,
        },
        {
          name: "pancakeswap-v3",
          address: PANCAKESWAP_V3_BSC.router,
          kind: "v3",
          // Pools are CREATE2-deployed by the pool deployer, not the factory: see above.
          factory: PANCAKESWAP_V3_BSC.poolDeployer,
          initCodeHash: PANCAKESWAP_V3_BSC.initCodeHash,
          feeTiers: [...PANCAKESWAP_V3_BSC.feeTiers],
        },
      ],
      quoter: PANCAKESWAP_V3_BSC.quoter,
      connectors: [BSC_WBNB, BSC_USDT],
      wrappedNative: BSC_WBNB,
    },
  },
  base: {
    chainId: 8453,
    wrappedNative: { symbol: "WETH", address: BASE_WETH, decimals: 18 },
    swap: {
      routers: [
        {
          name: "uniswap-v2",
          address: UNISWAP_V2_BASE.router,
          kind: "v2",
          factory: UNISWAP_V2_BASE.factory,
          initCodeHash: UNISWAP_V2_BASE.initCodeHash,
          feeBps: UNISWAP_V2_BASE.feeBps,
        },
        {
          name: "uniswap-v3",
          address: UNISWAP_V3_BASE.router,
          kind: "v3",
          factory: UNISWAP_V3_BASE.factory,
          initCodeHash: UNISWAP_V3_BASE.initCodeHash,
          feeTiers: [...UNISWAP_V3_BASE.feeTiers],
        },
      ],
      quoter: UNISWAP_V3_BASE.quoter,
      connectors: [BASE_WETH, BASE_USDC],
      wrappedNative: BASE_WETH,
    },
  },
};

/** The real routers' `swap` config of `network` (a fresh copy: the caller may change it). */
export function knownSwapConfig(network: NetworkName): SwapConfigInput {
  return structuredClone(KNOWN_SWAP[network].swap);
}

/** The network whose real routers run on `chainId`, if any. */
export function knownSwapNetwork(chainId: number): NetworkName | undefined {
  return (Object.keys(KNOWN_SWAP) as NetworkName[]).find((name) => KNOWN_SWAP[name].chainId === chainId);
}
