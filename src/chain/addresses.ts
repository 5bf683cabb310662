import type { Address } from "viem";

/** Canonical ERC-4337 EntryPoint v0.7, the same on every chain. */
export const ENTRY_POINT_V07: Address = "0x0000000071727De22E5E9d8BAf0edAc6f37da032";
/** Multicall3 lives at this address on BNB Chain, Base and (set by the devnet) locally. */
export const MULTICALL3: Address = "0xcA11bde05977b3631167028862bE2a173976CA11";
/**
 * Arachnid's deterministic deployment proxy (github.com/Arachnid/deterministic-deployment-proxy), present on BNB
 * Chain and Base and placed by anvil: what the relay402 contracts are deployed through, so their CREATE2 addresses
 * are the same on every chain.
 */
export const CREATE2_DEPLOYER: Address = "0x4e59b44847b379578588920cA78FbF26c0B4956C";
