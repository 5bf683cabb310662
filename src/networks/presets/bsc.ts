import type { Address, Hex } from "viem";
import { COMMON_USER_OP_CAPS, type NetworkPreset } from "../preset";

// BNB Smart Chain mainnet. The DEX values were read from PancakeSwap's own published deployment lists and source,
// named beside each (repository, path, commit); why the V3 router is the Smart Router and the V3 factory is the
// pool deployer is told in src/swap/known-routers.ts.

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
/** Binance-Peg USD Coin on bsc (18 decimals). Source: pancakeswap/pancake-frontend packages/tokens/src/constants/common.ts (USDC_BSC). */
export const BSC_USDC: Address = "0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d";

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

export const bsc: NetworkPreset<"bsc"> = {
  name: "bsc",
  title: "BNB Smart Chain",
  // bnb-chain/bsc params/config.go: BSCChainConfig, ChainID 56.
  chainId: 56,
  testnet: false,
  // x402 v1 names no BNB Chain network (coinbase/x402 typescript/packages/x402/src/types/shared/network.ts);
  // v2 names every EVM chain by CAIP-2, eip155:<chain id>.
  x402: { caip2: "eip155:56", v1Name: null },
  // 0.45 s since the Fermi hard fork of 14 January 2026: bnb-chain/BEPs BEP-619.md ("Short Block Interval Phase
  // Three: 0.45 Seconds"), https://www.bnbchain.org/en/blog/fermi-hard-fork-accelerates-bsc-to-0-45-second-block-times
  blockTimeMs: 450,
  // BscScan: https://hummingbot.org/chains/bnb-chain ("Block Explorer: https://bscscan.com/"); pages /tx/<hash>
  // and /address/<address> as on every Etherscan instance.
  explorer: { tx: "https://bscscan.com/tx/{hash}", address: "https://bscscan.com/address/{address}" },
  // Binance-Peg USDT and USDC are plain BEP-20 bridge tokens: 18 decimals, no transferWithAuthorization, no permit
  // (https://docs.dexter.cash/docs/facilitator-and-chains/bsc/, "BSC stablecoins lack EIP-3009"; verified
  // on-chain there), hence relay402's relayer, whose EIP-712 domain payers sign instead.
  stablecoins: [
    { symbol: "USDT", address: BSC_USDT, decimals: 18, eip3009: false, eip2612: false, eip712: null },
    { symbol: "USDC", address: BSC_USDC, decimals: 18, eip3009: false, eip2612: false, eip712: null },
  ],
  swap: {
    wrappedNative: { symbol: "WBNB", address: BSC_WBNB, decimals: 18 },
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
        feeTiers: PANCAKESWAP_V3_BSC.feeTiers,
      },
    ],
    quoter: PANCAKESWAP_V3_BSC.quoter,
    connectors: [BSC_WBNB, BSC_USDT],
  },
  userOpCaps: { maxFeePerGasGwei: 10, maxTotalGas: 3_000_000, ...COMMON_USER_OP_CAPS },
};
