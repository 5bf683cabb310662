import type { Address, Hex } from "viem";
import { COMMON_USER_OP_CAPS, type NetworkPreset } from "../preset";

// Base mainnet. The DEX values were read from Uniswap's own published deployment lists and source, named beside
// each (repository, path, commit).

/**
 * WETH on base (the OP-stack predeploy). Source: Uniswap/docs docs/contracts/v3/reference/deployments/
 * Base-Deployments.md ("Wrapped Native Token Addresses") and pancakeswap/pancake-frontend
 * packages/swap-sdk-evm/src/constants.ts (WETH9[ChainId.BASE]).
 */
export const BASE_WETH: Address = "0x4200000000000000000000000000000000000006";
/**
 * Circle's USDC on base (6 decimals). Source: coinbase/x402 typescript/packages/mechanisms/evm/src/shared/
 * defaultAssets.ts (DEFAULT_STABLECOINS["eip155:8453"]) and pancakeswap/pancake-frontend
 * packages/tokens/src/constants/common.ts (USDC[ChainId.BASE], STABLE_COIN[ChainId.BASE]).
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

export const base: NetworkPreset<"base"> = {
  name: "base",
  title: "Base",
  // Chain id and block time: ethereum-optimism/superchain-registry superchain/configs/mainnet/base.toml
  // (chain_id = 8453, block_time = 2).
  chainId: 8453,
  testnet: false,
  // x402 v1's name "base" and its chain: coinbase/x402 typescript/packages/x402/src/types/shared/network.ts
  // (EvmNetworkToChainId); v2 is CAIP-2.
  x402: { caip2: "eip155:8453", v1Name: "base" },
  blockTimeMs: 2_000,
  // Basescan: the "Block explorer: https://basescan.org" of https://www.alchemy.com/rpc/base.md's links and Base's
  // docs (https://docs.base.org/base-chain/tools/block-explorers).
  explorer: { tx: "https://basescan.org/tx/{hash}", address: "https://basescan.org/address/{address}" },
  // Circle's FiatToken v2.2: EIP-3009 and EIP-2612 (circlefin/stablecoin-evm contracts/v2/FiatTokenV2.sol,
  // built on contracts/v2/EIP3009.sol and contracts/v2/EIP2612.sol). EIP-712 domain "USD Coin" / "2": coinbase/x402
  // typescript/packages/mechanisms/evm/src/shared/defaultAssets.ts (DEFAULT_STABLECOINS["eip155:8453"]).
  stablecoins: [
    {
      symbol: "USDC",
      address: BASE_USDC,
      decimals: 6,
      eip3009: true,
      eip2612: true,
      eip712: { name: "USD Coin", version: "2" },
    },
  ],
  swap: {
    wrappedNative: { symbol: "WETH", address: BASE_WETH, decimals: 18 },
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
        feeTiers: UNISWAP_V3_BASE.feeTiers,
      },
    ],
    quoter: UNISWAP_V3_BASE.quoter,
    connectors: [BASE_WETH, BASE_USDC],
  },
  // Base's preVerificationGas carries the L1 data fee, hence a larger total than bsc's.
  userOpCaps: { maxFeePerGasGwei: 5, maxTotalGas: 5_000_000, ...COMMON_USER_OP_CAPS },
};
