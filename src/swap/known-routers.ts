import type { NetworkConfigInput, NetworkName } from "../config/schema";
import { NETWORK_PRESETS, type PresetSwap, presetOf } from "../networks";

/**
 * The real DEX deployments of the networks whose preset has one (src/networks/presets: PancakeSwap on bsc,
 * Uniswap on base), as a network's `swap` config spells them: what a forked devnet uses (scripts/devnet/start.ts
 * with BSC_RPC_URL / BASE_RPC_URL) and what a production config can copy. Two traps the presets' values avoid:
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
 * artifacts the devnet deploys (checked by test/swap/known-routers.test.ts); PancakeSwap's pair and pool are its
 * own builds, so theirs are taken from its source only.
 */

type SwapConfigInput = NonNullable<NetworkConfigInput["swap"]>;

/** The network's real DEX as its preset records it, if it has one. */
export const knownSwap = (network: NetworkName): PresetSwap | undefined => presetOf(network).swap;

/** The real routers' `swap` config of `network` (a fresh copy: the caller may change it), if its preset has a DEX. */
export function knownSwapConfig(network: NetworkName): SwapConfigInput | undefined {
  const swap = knownSwap(network);
  if (!swap) return undefined;
  return {
    routers: structuredClone(swap.routers),
    quoter: swap.quoter,
    connectors: [...swap.connectors],
    wrappedNative: swap.wrappedNative.address,
  };
}

/** The network whose real routers run on `chainId`, if any (the preset is wrong on any other chain). */
export function knownSwapNetwork(chainId: number): NetworkName | undefined {
  return NETWORK_PRESETS.find((preset) => preset.chainId === chainId && preset.swap)?.name;
}
