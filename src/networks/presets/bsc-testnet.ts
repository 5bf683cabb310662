import type { Address } from "viem";
import type { NetworkPreset } from "../preset";
import { bsc } from "./bsc";

/**
 * The testnet's Binance-Peg USD Coin (18 decimals, like bsc's), the one BNB Chain's testnet faucet hands out.
 * Source: pancakeswap/pancake-frontend packages/tokens/src/constants/common.ts (USDC_TESTNET, ChainId.BSC_TESTNET).
 */
export const BSC_TESTNET_USDC: Address = "0x64544969ed7EBf5f083679233325356EbE738930";

/** BNB Smart Chain's public testnet ("Chapel"): where a bsc deployment is rehearsed. No DEX preset. */
export const bscTestnet: NetworkPreset<"bsc-testnet"> = {
  name: "bsc-testnet",
  title: "BNB Smart Chain Testnet",
  // bnb-chain/bsc params/config.go: ChapelChainConfig, ChainID 97.
  chainId: 97,
  testnet: true,
  // x402 v1 names no BNB Chain network (coinbase/x402 typescript/packages/x402/src/types/shared/network.ts).
  x402: { caip2: "eip155:97", v1Name: null },
  // The testnet takes each block-interval hard fork before mainnet: Fermi's 0.45 s (bnb-chain/BEPs BEP-619.md;
  // "deployed the Fermi Hardfork to the testnet … from 750 milliseconds to 450 milliseconds",
  // https://rfq.news/binancecoin/bnb-smart-chain-slashes-block-time-forty-percent-via-fermi-hardfork).
  blockTimeMs: 450,
  // Testnet BscScan: "Block Explorer https://testnet.bscscan.com"
  // (https://dev.to/onfinality/bnb-chain-testnet-rpc-endpoint-chain-settings-debugging-2l53).
  explorer: {
    tx: "https://testnet.bscscan.com/tx/{hash}",
    address: "https://testnet.bscscan.com/address/{address}",
  },
  // A Binance-Peg token like bsc's: no EIP-3009, no EIP-2612, so no EIP-712 domain of its own.
  stablecoins: [
    { symbol: "USDC", address: BSC_TESTNET_USDC, decimals: 18, eip3009: false, eip2612: false, eip712: null },
  ],
  // bsc's: the same chain software and gas model.
  userOpCaps: { ...bsc.userOpCaps },
};
