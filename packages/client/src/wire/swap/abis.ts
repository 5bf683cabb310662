import { parseAbi } from "viem";

/** The relayer's swap entry points (contracts/Relayer.sol): the call is built by the relayer from `route`. */
export const relayerSwapAbi = parseAbi([
  "struct SwapAuthorization { address from; address sellToken; address buyToken; uint256 sellAmount; uint256 minBuyAmount; address recipient; uint256 fee; address router; bytes32 routeHash; uint256 validAfter; uint256 validBefore; bytes32 nonce; }",
  "struct SwapOrder { address sellToken; address buyToken; uint256 sellAmount; uint256 minBuyAmount; address recipient; uint256 fee; }",
  "struct SwapRoute { address router; bytes path; }",
  "function swapWithAuthorization(SwapAuthorization auth, bytes signature, SwapRoute route) returns (uint256 buyAmount)",
  "function swapBatch(SwapOrder order, SwapRoute route) returns (uint256 buyAmount)",
  "function routerKind(address router) view returns (uint8)",
  "function setRouter(address router, uint8 kind)",
  "function feeRecipient() view returns (address)",
  "function setFeeRecipient(address recipient)",
  "function SWAP_WITH_AUTHORIZATION_TYPEHASH() view returns (bytes32)",
  "event SwapExecuted(address indexed payer, bytes32 indexed nonce, address indexed recipient, address sellToken, address buyToken, uint256 sellAmount, uint256 fee, uint256 buyAmount, bytes32 authorizationHash)",
  "error RouterNotWhitelisted(address router)",
  "error InvalidSwapPath()",
  "error InvalidSwap()",
  "error InsufficientOutput(uint256 received, uint256 minimum)",
  "error RouteNotSigned()",
]);

/** Router kinds of `setRouter` / `routerKind` (0 = not whitelisted). */
export const ROUTER_KIND = { v2: 1, v3: 2 } as const;

/** Uniswap V2 Router02 (and PancakeSwap V2): quotes and the user's own swap. */
export const v2RouterAbi = parseAbi([
  "function getAmountsOut(uint256 amountIn, address[] path) view returns (uint256[] amounts)",
  "function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[] amounts)",
  "function addLiquidity(address tokenA, address tokenB, uint256 amountADesired, uint256 amountBDesired, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline) returns (uint256 amountA, uint256 amountB, uint256 liquidity)",
  "function factory() view returns (address)",
  "function WETH() view returns (address)",
]);

export const v2FactoryAbi = parseAbi(["function getPair(address tokenA, address tokenB) view returns (address pair)"]);

export const v2PairAbi = parseAbi([
  "function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)",
  "function token0() view returns (address)",
]);

export const v3FactoryAbi = parseAbi([
  "function getPool(address tokenA, address tokenB, uint24 fee) view returns (address pool)",
]);

export const v3PoolAbi = parseAbi([
  "function slot0() view returns (uint160 sqrtPriceX96, int24 tick, uint16 observationIndex, uint16 observationCardinality, uint16 observationCardinalityNext, uint8 feeProtocol, bool unlocked)",
  "function liquidity() view returns (uint128)",
]);

/** SwapRouter02 (IV3SwapRouter): exactInput has no deadline field. */
export const swapRouter02Abi = parseAbi([
  "struct ExactInputParams { bytes path; address recipient; uint256 amountIn; uint256 amountOutMinimum; }",
  "function exactInput(ExactInputParams params) payable returns (uint256 amountOut)",
]);

/** QuoterV2: not a view (it reverts inside), so it is read with eth_call. */
export const quoterV2Abi = parseAbi([
  "struct QuoteExactInputSingleParams { address tokenIn; address tokenOut; uint256 amountIn; uint24 fee; uint160 sqrtPriceLimitX96; }",
  "function quoteExactInput(bytes path, uint256 amountIn) returns (uint256 amountOut, uint160[] sqrtPriceX96AfterList, uint32[] initializedTicksCrossedList, uint256 gasEstimate)",
  "function quoteExactInputSingle(QuoteExactInputSingleParams params) returns (uint256 amountOut, uint160 sqrtPriceX96After, uint32 initializedTicksCrossed, uint256 gasEstimate)",
]);

export const positionManagerAbi = parseAbi([
  "struct MintParams { address token0; address token1; uint24 fee; int24 tickLower; int24 tickUpper; uint256 amount0Desired; uint256 amount1Desired; uint256 amount0Min; uint256 amount1Min; address recipient; uint256 deadline; }",
  "function createAndInitializePoolIfNecessary(address token0, address token1, uint24 fee, uint160 sqrtPriceX96) payable returns (address pool)",
  "function mint(MintParams params) payable returns (uint256 tokenId, uint128 liquidity, uint256 amount0, uint256 amount1)",
]);

export const wrappedNativeAbi = parseAbi(["function deposit() payable"]);
