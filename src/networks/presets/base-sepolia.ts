import type { Address } from "viem";
import type { NetworkPreset } from "../preset";
import { base } from "./base";

/**
 * Circle's test USDC on Base Sepolia (6 decimals). Source: coinbase/x402 typescript/packages/mechanisms/evm/src/
 * shared/defaultAssets.ts (DEFAULT_STABLECOINS["eip155:84532"]) and pancakeswap/pancake-frontend
 * packages/tokens/src/constants/common.ts (USDC[ChainId.BASE_SEPOLIA]).
 */
export const BASE_SEPOLIA_USDC: Address = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";

/** Base's public testnet: where a Base deployment is rehearsed. No DEX preset: swaps are configured by hand. */
export const baseSepolia: NetworkPreset<"base-sepolia"> = {
  name: "base-sepolia",
  title: "Base Sepolia",
  // Chain id and block time: ethereum-optimism/superchain-registry superchain/configs/sepolia/base.toml
  // (chain_id = 84532, block_time = 2).
  chainId: 84532,
  testnet: true,
  // x402 v1's name "base-sepolia": coinbase/x402 typescript/packages/x402/src/types/shared/network.ts
  // (EvmNetworkToChainId); v2 is CAIP-2.
  x402: { caip2: "eip155:84532", v1Name: "base-sepolia" },
  blockTimeMs: 2_000,
  // "Block explorer: https://sepolia.basescan.org" (https://www.alchemy.com/rpc/base-sepolia.md), the Basescan of
  // the testnet.
  explorer: {
    tx: "https://sepolia.basescan.org/tx/{hash}",
    address: "https://sepolia.basescan.org/address/{address}",
  },
  // The same FiatToken v2.2 as on Base (EIP-3009 and EIP-2612), but its EIP-712 name is "USDC", not "USD Coin":
  // coinbase/x402 defaultAssets.ts (DEFAULT_STABLECOINS["eip155:84532"]: name "USDC", version "2").
  stablecoins: [
    {
      symbol: "USDC",
      address: BASE_SEPOLIA_USDC,
      decimals: 6,
      eip3009: true,
      eip2612: true,
      eip712: { name: "USDC", version: "2" },
    },
  ],
  // Base's: the same OP-stack gas model (an L1 data fee in preVerificationGas).
  userOpCaps: { ...base.userOpCaps },
};
