import type { Address } from "viem";
import { CANONICAL } from "./canonical";

// The canonical addresses the service uses, named as its modules import them (src/chain/canonical.ts holds each
// one's source and code).

/** Canonical ERC-4337 EntryPoint v0.7, the same on every chain. */
export const ENTRY_POINT_V07: Address = CANONICAL.entryPointV07.address;
/** Multicall3 lives at this address on BNB Chain, Base and (placed by the devnet) locally. */
export const MULTICALL3: Address = CANONICAL.multicall3.address;
/**
 * Arachnid's deterministic deployment proxy: what the relay402 contracts are deployed through, so their CREATE2
 * addresses are the same on every chain.
 */
export const CREATE2_DEPLOYER: Address = CANONICAL.create2Deployer.address;
