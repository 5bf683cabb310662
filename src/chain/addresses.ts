import type { Address } from "viem";

/** Canonical ERC-4337 EntryPoint v0.7, the same on every chain. */
export const ENTRY_POINT_V07: Address = "0x0000000071727De22E5E9d8BAf0edAc6f37da032";
/** Multicall3 lives at this address on BNB Chain, Base and (set by the devnet) locally. */
export const MULTICALL3: Address = "0xcA11bde05977b3631167028862bE2a173976CA11";
