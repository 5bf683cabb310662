import type { Address } from "viem";
import type { NetworkRuntime } from "../chain/networks";
import { smartWalletOf } from "../config/capabilities";
import { refuse } from "../userops/invalid";
import { type UserOpNetwork, userOpNetworkOf } from "../userops/user-op-network";
import { createPoolPort, type PoolPort } from "./pool-port";

/** A network with incognito on: its UserOp handles and its pool. */
export type IncognitoNetwork = { userOps: UserOpNetwork; pool: PoolPort };

const byRuntime = new WeakMap<NetworkRuntime, IncognitoNetwork>();

/** The network's pool, or a 400 naming the network when its config has no `contracts.privacyPool`. */
export function incognitoNetworkOf(runtime: NetworkRuntime, field = "paymentRequirements.network"): IncognitoNetwork {
  const known = byRuntime.get(runtime);
  if (known) return known;
  const pool = runtime.config.contracts.privacyPool;
  if (!pool) {
    throw refuse(field, `incognito is not enabled on ${runtime.name} (no privacy pool configured)`);
  }
  const network = {
    userOps: userOpNetworkOf(runtime),
    pool: createPoolPort(runtime.client, pool as Address, smartWalletOf(runtime, "incognito").relayer),
  };
  byRuntime.set(runtime, network);
  return network;
}
