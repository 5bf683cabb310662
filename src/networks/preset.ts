import type { Address, Hex } from "viem";
import type { UserOpCaps } from "../userops/caps";

// What relay402 knows about a chain before any config: one preset per network (src/networks/presets/), each fact
// with its public source beside it. Addresses that are the same on every chain (EntryPoint, Multicall3, the
// deterministic deployer, Permit2, x402's proxy) are not repeated here: they live in src/chain/addresses.ts.

/** A stablecoin users pay with on the network, as its contract is deployed. */
export type PresetToken = {
  symbol: string;
  address: Address;
  decimals: number;
  /** transferWithAuthorization (EIP-3009): x402's own `exact` payments settle on the token itself. */
  eip3009: boolean;
  /** permit (EIP-2612). */
  eip2612: boolean;
  /**
   * The token's EIP-712 domain name and version, what EIP-3009 and EIP-2612 signatures are made over; null for
   * a token that signs nothing (it has neither): relay402's relayer then defines the domain payers sign.
   */
  eip712: { name: string; version: string } | null;
};

/** A DEX router as a network's `swap` config spells it (src/config/schema.ts SwapRouter). */
export type PresetRouter = {
  name: string;
  address: Address;
  kind: "v2" | "v3";
  /** V2: the pair factory; V3: what pools are CREATE2-deployed from (src/swap/known-routers.ts). */
  factory: Address;
  initCodeHash: Hex;
  feeBps?: number;
  feeTiers?: number[];
};

/** The network's real DEX deployment: what a fork of the chain and a production config swap through. */
export type PresetSwap = {
  wrappedNative: { symbol: string; address: Address; decimals: number };
  routers: PresetRouter[];
  /** QuoterV2 of the V3 router's deployment. */
  quoter: Address;
  /** Middle tokens of two-hop routes: the wrapped native token and the main stablecoin, the deepest pools. */
  connectors: Address[];
};

export type NetworkPreset<Name extends string = string> = {
  /** The network's name in config, routes, environment variables (upper case, `-` as `_`) and answers. */
  name: Name;
  /** The chain's own name, for people. */
  title: string;
  chainId: number;
  testnet: boolean;
  /** x402 names: v2 the CAIP-2 id, v1 its own name where x402 v1 has one. */
  x402: { caip2: string; v1Name: string | null };
  /** Time between blocks (the config's blockTimeMs default). */
  blockTimeMs: number;
  /** The block explorer's pages: `{hash}` and `{address}` are replaced. */
  explorer: { tx: string; address: string };
  stablecoins: PresetToken[];
  swap?: PresetSwap;
  /** Default bounds on a bundler's proposal for a sponsored UserOp (a network's `userOpCaps` overrides them). */
  userOpCaps: UserOpCaps;
};

/**
 * UserOp caps shared by every network. Measured on the devnet: a 20-transfer payment needs callGasLimit 632k,
 * verification 60k, paymaster verification 25k, no postOp; fees of about 1.2 gwei. A network's total and fee cap
 * are its own (Base's preVerificationGas carries the L1 data fee, hence its larger total).
 */
export const COMMON_USER_OP_CAPS = {
  maxCallGasLimit: 2_000_000,
  maxVerificationGasLimit: 300_000,
  maxPaymasterVerificationGasLimit: 150_000,
  maxPaymasterPostOpGasLimit: 50_000,
} as const;
