import { relayerAbi } from "@relay402/client/wire/abis";
import { privacyPoolAbi } from "@relay402/client/wire/incognito/pool-abi";
import { fieldToHex } from "@relay402/client/wire/incognito/protocol";
import type { Address, PublicClient } from "viem";
import { MULTICALL3 } from "../chain/addresses";
import type { Leaf } from "./leaf-store";

/** What the incognito flows read from a network's PrivacyPool (and the relayer whose whitelist it uses). */
export type PoolPort = {
  address: Address;
  /** Whether the root is in the pool's history and the nullifier unspent: one round trip. */
  spendState(root: bigint, nullifierHash: bigint): Promise<{ rootKnown: boolean; nullifierSpent: boolean }>;
  /** The relayer's whitelist, which the pool's shield checks. */
  tokenWhitelisted(token: Address): Promise<boolean>;
  /** The `LeafInserted` events of blocks [fromBlock, toBlock], in order. */
  leavesIn(fromBlock: bigint, toBlock: bigint): Promise<Leaf[]>;
  /** The tree's size and root as of `blockNumber`. */
  treeAt(blockNumber: bigint): Promise<{ size: number; root: string }>;
  latestBlock(): Promise<bigint>;
};

export function createPoolPort(client: PublicClient, pool: Address, relayer: Address): PoolPort {
  return {
    address: pool,
    async spendState(root, nullifierHash) {
      const [rootKnown, nullifierSpent] = await client.multicall({
        multicallAddress: MULTICALL3,
        allowFailure: false,
        contracts: [
          { address: pool, abi: privacyPoolAbi, functionName: "isKnownRoot", args: [root] },
          { address: pool, abi: privacyPoolAbi, functionName: "nullifierSpent", args: [nullifierHash] },
        ],
      });
      return { rootKnown, nullifierSpent };
    },
    tokenWhitelisted: (token) =>
      client.readContract({ address: relayer, abi: relayerAbi, functionName: "isTokenWhitelisted", args: [token] }),
    async leavesIn(fromBlock, toBlock) {
      const logs = await client.getContractEvents({
        address: pool,
        abi: privacyPoolAbi,
        eventName: "LeafInserted",
        fromBlock,
        toBlock,
        strict: true,
      });
      return logs.map((log) => ({
        leafIndex: Number(log.args.leafIndex),
        commitment: fieldToHex(log.args.commitment),
        root: fieldToHex(log.args.root),
        blockNumber: Number(log.blockNumber),
      }));
    },
    async treeAt(blockNumber) {
      const [size, root] = await client.multicall({
        multicallAddress: MULTICALL3,
        allowFailure: false,
        blockNumber,
        contracts: [
          { address: pool, abi: privacyPoolAbi, functionName: "size" },
          { address: pool, abi: privacyPoolAbi, functionName: "currentRoot" },
        ],
      });
      return { size: Number(size), root: fieldToHex(root) };
    },
    latestBlock: () => client.getBlockNumber({ cacheTime: 0 }),
  };
}
