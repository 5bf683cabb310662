import { ROUTER_KIND, relayerSwapAbi } from "@relay402/client/wire/swap/abis";
import { v2PairAddress, v3PoolAddress } from "@relay402/client/wire/swap/quote-math";
import { SWAP_WITH_AUTHORIZATION_TYPE } from "@relay402/client/wire/swap/typed-data";
import {
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  getAddress,
  type Hex,
  isAddressEqual,
  keccak256,
  parseAbi,
  toBytes,
} from "viem";
import { MULTICALL3 } from "../chain/addresses";
import type { NetworkName, SwapConfig } from "../config/schema";
import { type Aggregate3Call, decodeAggregate3, encodeAggregate3 } from "./quote-plan";

/** Both a V2 pair and a V3 pool answer token0(): a contract at a computed address that does is a real pool. */
const poolAbi = parseAbi(["function token0() view returns (address)"]);

const KIND_NAMES: Record<number, string> = { [ROUTER_KIND.v2]: "v2", [ROUTER_KIND.v3]: "v3" };

/** The hash of the type the service has payers sign (the quote's typed data); the relayer must hash the same. */
const SIGNED_TYPEHASH = keccak256(toBytes(SWAP_WITH_AUTHORIZATION_TYPE));

/** The candidate pools of a router: every pair of the configured tokens and connectors (and each V3 fee tier). */
function samplePools(router: SwapConfig["routers"][number], tokens: readonly Address[]): Address[] {
  const pools: Address[] = [];
  for (let i = 0; i < tokens.length; i++) {
    for (let j = i + 1; j < tokens.length; j++) {
      const [a, b] = [tokens[i] as Address, tokens[j] as Address];
      if (router.kind === "v2") pools.push(v2PairAddress(router.factory, router.initCodeHash, a, b));
      else
        for (const fee of router.feeTiers ?? [])
          pools.push(v3PoolAddress(router.factory, router.initCodeHash, a, b, fee));
    }
  }
  return pools;
}

/**
 * Why swaps cannot work on a network, read in one Multicall3 eth_call; undefined when they can. Three mistakes
 * make every swap fail while everything else looks fine:
 * - a relayer whose SWAP_WITH_AUTHORIZATION_TYPEHASH is not the hash of the type the service has payers sign (one
 *   deployed before swaps bound their route): every signature recovers another signer, and every swap is refused;
 * - a configured router the relayer does not whitelist with the same kind (Relayer.routerKind): every settle
 *   reverts with RouterNotWhitelisted (or the wrong call for the router), after quotes that looked good;
 * - a factory or init-code hash that computes no real pool (pools are never looked up: a wrong hash, or a
 *   PancakeSwap V3 factory given where its pool deployer is meant, quotes "no route" for every pair).
 * A pool counts as real when the contract at the computed address answers token0(); the sample is every pair
 * of the network's tokens, connectors and wrapped native token, so one existing pool is enough.
 */
export async function swapWiringProblem(
  name: NetworkName,
  relayer: Address,
  swap: SwapConfig,
  tokens: readonly Address[],
  call: (to: Address, data: Hex) => Promise<Hex | undefined>,
): Promise<string | undefined> {
  const unique = [
    ...new Map(
      [...tokens, ...swap.connectors, swap.wrappedNative].map((t) => [t.toLowerCase(), getAddress(t)]),
    ).values(),
  ];
  const pools = swap.routers.map((router) => samplePools(router, unique));
  const calls: Aggregate3Call[] = [
    ...swap.routers.map((router) => ({
      target: relayer,
      allowFailure: true as const,
      callData: encodeFunctionData({ abi: relayerSwapAbi, functionName: "routerKind", args: [router.address] }),
    })),
    ...pools.flat().map((pool) => ({
      target: pool,
      allowFailure: true as const,
      callData: encodeFunctionData({ abi: poolAbi, functionName: "token0" }),
    })),
    {
      target: relayer,
      allowFailure: true as const,
      callData: encodeFunctionData({ abi: relayerSwapAbi, functionName: "SWAP_WITH_AUTHORIZATION_TYPEHASH" }),
    },
  ];
  let results: readonly { success: boolean; returnData: Hex }[];
  try {
    results = decodeAggregate3((await call(MULTICALL3, encodeAggregate3(calls))) ?? "0x");
  } catch (error) {
    return `could not read the swap wiring (${(error as Error).message.split("\n")[0]})`;
  }

  const problems: string[] = [];
  const typehashProblem = signedTypeProblem(relayer, results.at(-1));
  if (typehashProblem) problems.push(typehashProblem);
  let next = swap.routers.length;
  swap.routers.forEach((router, i) => {
    const field = `networks.${name}.swap.routers.${i}`;
    const expected = ROUTER_KIND[router.kind];
    const kind = decodeUint8(results[i]);
    if (kind === undefined)
      problems.push(`the relayer ${relayer} does not answer routerKind (not a relay402 Relayer?)`);
    else if (kind === 0) {
      problems.push(
        `${field} (${router.address}, ${router.kind}) is not whitelisted on the relayer: its owner calls setRouter(${router.address}, ${expected})`,
      );
    } else if (kind !== expected) {
      problems.push(
        `${field} (${router.address}) is whitelisted on the relayer as ${KIND_NAMES[kind] ?? kind}, configured as ${router.kind}`,
      );
    }
    const routerPools = pools[i] as Address[];
    const real = routerPools.some((_, j) => isPool(results[next + j], unique));
    next += routerPools.length;
    if (!real) {
      problems.push(
        `${field}.factory and .initCodeHash compute no existing pool for any pair of the network's tokens and connectors (wrong factory, pool deployer or init-code hash?)`,
      );
    }
  });
  return problems.length > 0 ? problems.join("; ") : undefined;
}

/** Why the relayer would not recover the payer from the type the service signs; undefined when it would. */
function signedTypeProblem(
  relayer: Address,
  result: { success: boolean; returnData: Hex } | undefined,
): string | undefined {
  let typehash: Hex | undefined;
  try {
    if (result?.success)
      typehash = decodeFunctionResult({
        abi: relayerSwapAbi,
        functionName: "SWAP_WITH_AUTHORIZATION_TYPEHASH",
        data: result.returnData,
      });
  } catch {}
  if (typehash === undefined) return `the relayer ${relayer} does not answer SWAP_WITH_AUTHORIZATION_TYPEHASH()`;
  if (typehash === SIGNED_TYPEHASH) return undefined;
  return `the relayer ${relayer} hashes another SwapWithAuthorization type (SWAP_WITH_AUTHORIZATION_TYPEHASH ${typehash}, the service signs ${SIGNED_TYPEHASH}: ${SWAP_WITH_AUTHORIZATION_TYPE}); a relayer deployed before swaps bound their route refuses every signed swap: deploy the current Relayer`;
}

function decodeUint8(result: { success: boolean; returnData: Hex } | undefined): number | undefined {
  if (!result?.success || result.returnData.length < 66) return undefined;
  try {
    return Number(decodeFunctionResult({ abi: relayerSwapAbi, functionName: "routerKind", data: result.returnData }));
  } catch {
    return undefined;
  }
}

/** A call to an address without code succeeds with no data: only a contract answering a sampled token is a pool. */
function isPool(result: { success: boolean; returnData: Hex } | undefined, tokens: readonly Address[]) {
  if (!result?.success || result.returnData.length < 66) return false;
  try {
    const token0 = decodeFunctionResult({ abi: poolAbi, functionName: "token0", data: result.returnData });
    return tokens.some((token) => isAddressEqual(token, token0));
  } catch {
    return false;
  }
}
