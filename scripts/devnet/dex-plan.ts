import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type Address,
  concat,
  encodeAbiParameters,
  getContractAddress,
  type Hex,
  keccak256,
  toHex,
  zeroAddress,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { CREATE2_DEPLOYER } from "../../src/chain/addresses";
import type { NetworkName } from "../../src/config/schema";
import { knownSwap } from "../../src/swap/known-routers";
import { forgeArtifact } from "./artifacts";
import { devnetKeys } from "./keys";

/**
 * The devnet DEX's contracts, planned without a chain: each Uniswap V2 and V3 contract from its npm build artifact
 * exactly as published (the routers find pairs and pools by CREATE2 address from a hard-coded hash of their
 * creation code, so a recompiled pair or pool would deploy and never be found), at its CREATE2 address, the same on
 * both chains and every run. scripts/devnet/dex.ts deploys them and seeds the pools.
 */

const UNISWAP = join(import.meta.dir, "..", "..", "node_modules", "@uniswap");

export const UNISWAP_V2_INIT_CODE_HASH: Hex = "0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f";
export const UNISWAP_V3_INIT_CODE_HASH: Hex = "0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54";

/** `networks.*.dex` of the manifest. */
export type DevnetDex = {
  wrappedNative: Address;
  v2: { name: string; factory: Address; router: Address; initCodeHash: Hex; feeBps: number };
  v3: {
    name: string;
    factory: Address;
    router: Address;
    quoter: Address;
    mixedRouteQuoter: Address;
    positionManager: Address;
    initCodeHash: Hex;
    feeTiers: number[];
  };
};

/**
 * Two artifacts of @uniswap/swap-router-contracts 1.3.1, committed as the package ships them (its dependencies pull
 * in hardhat, about 220 MB, only to hold three JSON files); test/swap/vendored-artifacts.test.ts checks each file's
 * sha256 against the package's. The package's QuoterV2 is v3-periphery 1.4.4's, byte for byte.
 */
export const VENDORED_UNISWAP = {
  dir: join(import.meta.dir, "..", "..", "artifacts", "uniswap", "swap-router-contracts-1.3.1"),
  package: "@uniswap/swap-router-contracts@1.3.1",
  files: {
    "SwapRouter02.json": {
      from: "artifacts/contracts/SwapRouter02.sol/SwapRouter02.json",
      sha256: "210a7bf29f26de9f45d35dac1214943eca41c3a002007dd6a0e1aa870bf2d2d1",
    },
    "MixedRouteQuoterV1.json": {
      from: "artifacts/contracts/lens/MixedRouteQuoterV1.sol/MixedRouteQuoterV1.json",
      sha256: "f141b2e0f1651751f6a25f6a8821725498077e3e949ab307e488cf7086f333fb",
    },
  },
} as const;

/**
 * Creation code of a Uniswap artifact: waffle builds (v2) store it without 0x, hardhat builds (v3) with. None of
 * the ones deployed here links a library (the position manager's NFTDescriptor is only used by the token
 * descriptor, which is the zero address); an unlinked placeholder would deploy broken code, so it stops the start.
 */
function uniswapArtifact(path: string): Hex {
  const vendored = path.startsWith("vendored/") ? join(VENDORED_UNISWAP.dir, path.slice("vendored/".length)) : null;
  const json = JSON.parse(readFileSync(vendored ?? join(UNISWAP, path), "utf8"));
  const code: string = json.bytecode;
  if (!/^(0x)?[0-9a-fA-F]*$/.test(code)) throw new Error(`${path} has unlinked library placeholders`);
  return (code.startsWith("0x") ? code : `0x${code}`) as Hex;
}

export const DEX_ARTIFACTS = {
  weth: "v2-periphery/build/WETH9.json",
  v2Pair: "v2-core/build/UniswapV2Pair.json",
  v2Factory: "v2-core/build/UniswapV2Factory.json",
  v2Router: "v2-periphery/build/UniswapV2Router02.json",
  v3Pool: "v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json",
  v3Factory: "v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json",
  positionManager: "v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json",
  // QuoterV2 ships in both v3-periphery 1.4.4 and swap-router-contracts 1.3.1 with identical bytecode.
  quoterV2: "v3-periphery/artifacts/contracts/lens/QuoterV2.sol/QuoterV2.json",
  mixedRouteQuoter: "vendored/MixedRouteQuoterV1.json",
  swapRouter02: "vendored/SwapRouter02.json",
} as const;

/**
 * keccak256 of the pair's and the pool's creation code in the npm artifacts: the init-code hashes the routers
 * and src/swap compute addresses with, on the devnet and on every chain Uniswap deployed these builds to.
 */
export function uniswapInitCodeHashes(): { v2: Hex; v3: Hex } {
  return { v2: keccak256(uniswapArtifact(DEX_ARTIFACTS.v2Pair)), v3: keccak256(uniswapArtifact(DEX_ARTIFACTS.v3Pool)) };
}

const constructorArgs = (types: string[], values: unknown[]) =>
  encodeAbiParameters(
    types.map((type) => ({ type })),
    values,
  );

/** `data` is what the CREATE2 deployer takes: salt, then init code. */
type Planned = { label: string; data: Hex; address: Address; gas: bigint };

/** Every contract with its init code and CREATE2 address, in deployment order (pure: no chain needed). */
function plan(): { contracts: Planned[]; dex: DevnetDex; dai: Address } {
  const contracts: Planned[] = [];
  const add = (label: string, code: Hex, args: Hex = "0x", gas = 7_000_000n) => {
    const initCode = concat([code, args]);
    const salt = keccak256(toHex(`relay402:dex:${label}`));
    const at = getContractAddress({ opcode: "CREATE2", from: CREATE2_DEPLOYER, salt, bytecode: initCode });
    contracts.push({ label, data: concat([salt, initCode]), address: at, gas });
    return at;
  };
  const owner = privateKeyToAccount(devnetKeys.owner).address;
  const weth = add("WETH9", uniswapArtifact(DEX_ARTIFACTS.weth), "0x", 1_500_000n);
  const dai = add("TestDAI", forgeArtifact("TestDAI.sol", "TestDAI").bytecode, "0x", 1_500_000n);
  const v2Factory = add(
    "UniswapV2Factory",
    uniswapArtifact(DEX_ARTIFACTS.v2Factory),
    constructorArgs(["address"], [owner]),
  );
  const v2Router = add(
    "UniswapV2Router02",
    uniswapArtifact(DEX_ARTIFACTS.v2Router),
    constructorArgs(["address", "address"], [v2Factory, weth]),
  );
  const v3Factory = add("UniswapV3Factory", uniswapArtifact(DEX_ARTIFACTS.v3Factory));
  const positionManager = add(
    "NonfungiblePositionManager",
    uniswapArtifact(DEX_ARTIFACTS.positionManager),
    // No token descriptor: tokenURI is never called here, and the descriptor is the only linked library user.
    constructorArgs(["address", "address", "address"], [v3Factory, weth, zeroAddress]),
  );
  const swapRouter02 = add(
    "SwapRouter02",
    uniswapArtifact(DEX_ARTIFACTS.swapRouter02),
    constructorArgs(["address", "address", "address", "address"], [v2Factory, v3Factory, positionManager, weth]),
  );
  const quoter = add(
    "QuoterV2",
    uniswapArtifact(DEX_ARTIFACTS.quoterV2),
    constructorArgs(["address", "address"], [v3Factory, weth]),
  );
  const mixedRouteQuoter = add(
    "MixedRouteQuoterV1",
    uniswapArtifact(DEX_ARTIFACTS.mixedRouteQuoter),
    constructorArgs(["address", "address", "address"], [v3Factory, v2Factory, weth]),
  );
  return {
    contracts,
    dai,
    dex: {
      wrappedNative: weth,
      v2: {
        name: "uniswap-v2",
        factory: v2Factory,
        router: v2Router,
        initCodeHash: UNISWAP_V2_INIT_CODE_HASH,
        feeBps: 30,
      },
      v3: {
        name: "uniswap-v3",
        factory: v3Factory,
        router: swapRouter02,
        quoter,
        mixedRouteQuoter,
        positionManager,
        initCodeHash: UNISWAP_V3_INIT_CODE_HASH,
        feeTiers: [500, 3000, 10000],
      },
    },
  };
}

let planned: ReturnType<typeof plan> | undefined;
/** The devnet DEX's addresses (deterministic, the same on both chains). */
export function devnetDex(): ReturnType<typeof plan> {
  planned ??= plan();
  return planned;
}

/**
 * The relayer's side of swaps, set up by relay402's deploy beside its other setup: the sellable token's
 * whitelist and both routers with the call kind the relayer builds for each. On the devnet: DAI and the Uniswap
 * routers deployed here. On a fork of `forkOf`: the chain's wrapped native token (the one token payers can get
 * there, by wrapping their gas) and its real routers (src/swap/known-routers.ts).
 */
export function devnetSwapSetup(forkOf?: NetworkName): {
  tokens: { symbol: string; address: Address; decimals: number; eip3009: boolean }[];
  routers: { address: Address; kind: "v2" | "v3" }[];
} {
  const known = forkOf && knownSwap(forkOf);
  if (known) {
    return {
      tokens: [{ ...known.wrappedNative, eip3009: false }],
      routers: known.routers.map((router) => ({ address: router.address, kind: router.kind })),
    };
  }
  const { dex, dai } = devnetDex();
  return {
    tokens: [{ symbol: "DAI", address: dai, decimals: 18, eip3009: false }],
    routers: [
      { address: dex.v2.router, kind: "v2" },
      { address: dex.v3.router, kind: "v3" },
    ],
  };
}
