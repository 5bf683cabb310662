import { type Address, type Hex, keccak256 } from "viem";

/**
 * The contracts relay402 relies on at the same address on every EVM chain, with the runtime code each must hold
 * there. `relay402 deploy` (src/operator/deploy/) refuses a chain whose canonical address holds other code, and the
 * devnet places exactly this code (scripts/devnet/canonical.ts; test/chain/canonical.test.ts checks both).
 *
 * `codeHash` is keccak256 of the runtime code as deployed, with the byte ranges in `immutables` zeroed first:
 * Permit2 caches its chain id and EIP-712 domain separator as immutables, so its code differs per chain by
 * exactly those 64 bytes. Every other contract here has the same code on every chain.
 */
export type CanonicalContract = {
  name: string;
  address: Address;
  codeHash: Hex;
  /** Byte ranges written by the constructor from the chain it runs on; zeroed before hashing. */
  immutables?: readonly { offset: number; length: number }[];
  /** Where the address and the code come from. */
  source: string;
  /** What may put it there when it is missing: relay402's deploy (CREATE2, the same address anywhere) or nobody. */
  deployable: boolean;
};

export const CANONICAL = {
  /**
   * Arachnid's deterministic deployment proxy: every relay402 contract is deployed through it. Source:
   * github.com/Arachnid/deterministic-deployment-proxy (README: address and runtime code); anvil places the same
   * 69 bytes at genesis.
   */
  create2Deployer: {
    name: "deterministic deployment proxy",
    address: "0x4e59b44847b379578588920cA78FbF26c0B4956C",
    codeHash: "0x2fa86add0aed31f33a762c9d88e807c475bd51d0f52bd0955754b2608f7e4989",
    source: "github.com/Arachnid/deterministic-deployment-proxy",
    deployable: false,
  },
  /**
   * ERC-4337 EntryPoint v0.7: npm @account-abstraction/contracts@0.7.0 artifacts/EntryPoint.json (its bytecode
   * through the CREATE2 deployer with eth-infinitism's salt 0x90d8…1de3 lands at this address; its one immutable,
   * the SenderCreator it creates, is the same everywhere).
   */
  entryPointV07: {
    name: "EntryPoint v0.7",
    address: "0x0000000071727De22E5E9d8BAf0edAc6f37da032",
    codeHash: "0x8db5ff695839d655407cc8490bb7a5d82337a86a6b39c3f0258aa6c3b582fc58",
    source: "npm @account-abstraction/contracts@0.7.0 artifacts/EntryPoint.json",
    deployable: false,
  },
  /**
   * Uniswap's Permit2, deployed on every chain through the deterministic deployer with the salt of Uniswap/permit2
   * script/DeployPermit2.s.sol (0x…d3af2663da51c10215000000). Runtime code: npm @uniswap/v4-periphery@1.0.3
   * lib/permit2/test/utils/DeployPermit2.sol (Permit2's own etching copy of that build; committed as
   * artifacts/uniswap/v4-periphery-1.0.3/DeployPermit2.sol). Its constructor writes two
   * immutables from the chain it runs on, _CACHED_CHAIN_ID at runtime offset 0x1b21 (6945) and
   * _CACHED_DOMAIN_SEPARATOR at 0x1b47 (6983), 32 bytes each: compared without them.
   */
  permit2: {
    name: "Permit2",
    address: "0x000000000022D473030F116dDEE9F6B43aC78BA3",
    codeHash: "0x463331fa7a0d5f07488e42c37b461bb56a822145c161a821fbafe7d4e916b546",
    immutables: [
      { offset: 6945, length: 32 },
      { offset: 6983, length: 32 },
    ],
    source: "npm @uniswap/v4-periphery@1.0.3 lib/permit2/test/utils/DeployPermit2.sol",
    deployable: false,
  },
  /**
   * Multicall3: the pre-signed deployment transaction of github.com/mds1/multicall3 README ("Deployment" section;
   * sender 0x05f3…63F2, nonce 0), kept as artifacts/canonical/multicall3.signed-tx.hex; its runtime is the 3,808
   * bytes after the 32-byte creation prefix.
   */
  multicall3: {
    name: "Multicall3",
    address: "0xcA11bde05977b3631167028862bE2a173976CA11",
    codeHash: "0xd5c15df687b16f2ff992fc8d767b4216323184a2bbc6ee2f9c398c318e770891",
    source: "github.com/mds1/multicall3 README.md (pre-signed deployment transaction)",
    deployable: false,
  },
  /**
   * x402's exact-scheme Permit2 proxy: x402's contracts/evm/script/data/exact-proxy-initcode.hex with x402's salt
   * through the CREATE2 deployer (artifacts/canonical/x402-exact-permit2-proxy.initcode.hex); its immutable is
   * Permit2's address, the same everywhere. The address x402 clients sign for (npm @x402/evm@2.27.0).
   */
  x402ExactPermit2Proxy: {
    name: "x402ExactPermit2Proxy",
    address: "0x402085c248EeA27D92E8b30b2C58ed07f9E20001",
    codeHash: "0xce6429c0bb49284660683287c0a8fe548a88379072327d026626909d202048b9",
    source: "github.com/coinbase/x402 contracts/evm/script/data/exact-proxy-initcode.hex; npm @x402/evm@2.27.0",
    deployable: true,
  },
  /**
   * x402's upto-scheme Permit2 proxy. x402 publishes no init code for it: it is built from x402's sources at commit
   * dd927a26 with x402's compiler settings (artifacts/x402/upto-proxy/README.md; test/chain/x402-upto-proxy-build.test.ts
   * builds it again), then sent through the CREATE2 deployer with x402's UPTO_SALT
   * (artifacts/canonical/x402-upto-permit2-proxy.initcode.hex). The address x402's upto clients sign for
   * (npm @x402/evm@2.27.0). Its one immutable is Permit2's address, the same everywhere.
   */
  x402UptoPermit2Proxy: {
    name: "x402UptoPermit2Proxy",
    address: "0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002",
    codeHash: "0x4662dc27323421a3698be49ac95f7b0dba141c238d31ef543248d1a11f8d8eec",
    source:
      "github.com/coinbase/x402@dd927a26 contracts/evm/src (x402UptoPermit2Proxy.sol, built); npm @x402/evm@2.27.0",
    deployable: true,
  },
  /** PoseidonT3 (the privacy pool's tree hash): npm poseidon-solidity@0.0.5 (PoseidonT3.address, .data). */
  poseidonT3: {
    name: "PoseidonT3",
    address: "0x3333333C0A88F9BE4fd23ed0536F9B6c427e3B93",
    codeHash: "0x4495c92f7f5db02c3922c3e56cbe427af9cb349a77fd3faf41165afb3137d022",
    source: "npm poseidon-solidity@0.0.5 (PoseidonT3)",
    deployable: true,
  },
  /** PoseidonT4 (the privacy pool's commitment hash): npm poseidon-solidity@0.0.5 (PoseidonT4.address, .data). */
  poseidonT4: {
    name: "PoseidonT4",
    address: "0x4443338EF595F44e0121df4C21102677B142ECF0",
    codeHash: "0xc8147a9ac6906cc4e2c499c1681fb84320cbea899718fe2146b957cd292c373c",
    source: "npm poseidon-solidity@0.0.5 (PoseidonT4)",
    deployable: true,
  },
} as const satisfies Record<string, CanonicalContract>;

export type CanonicalName = keyof typeof CANONICAL;

/** keccak256 of `code` with the contract's immutable ranges zeroed: what `codeHash` is compared with. */
export function canonicalCodeHash(contract: CanonicalContract, code: Hex): Hex {
  const ranges = contract.immutables ?? [];
  if (ranges.length === 0) return keccak256(code);
  let hex = code.slice(2);
  for (const { offset, length } of ranges) {
    hex = hex.slice(0, offset * 2) + "00".repeat(length) + hex.slice((offset + length) * 2);
  }
  return keccak256(`0x${hex}`);
}

export type CodeState = "present" | "missing" | "other-code";

/** What a canonical address holds: the expected code, nothing, or something else (which nothing may replace). */
export function canonicalCodeState(contract: CanonicalContract, code: Hex | undefined): CodeState {
  if (!code || code === "0x") return "missing";
  return canonicalCodeHash(contract, code) === contract.codeHash ? "present" : "other-code";
}
