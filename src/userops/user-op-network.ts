import type { Address } from "viem";
import type { LocalAccount } from "viem/accounts";
import type { NetworkRuntime } from "../chain/networks";
import { presetOf } from "../networks";
import { type Bundler, createBundler } from "./bundler";
import { type UserOpCaps, userOpCapsFor } from "./caps";

/** What a wallet flow needs per network besides the chain client: the bundler and the paymaster's signer. */
export type UserOpNetwork = {
  runtime: NetworkRuntime;
  bundler: Bundler;
  paymasterSigner: LocalAccount;
  entryPoint: Address;
  factory: Address;
  paymaster: Address;
  relayer: Address;
  /** What the paymaster signs at most: the network's defaults overridden by `userOpCaps` of its config. */
  caps: UserOpCaps;
};

const byRuntime = new WeakMap<NetworkRuntime, UserOpNetwork>();

/** The wallet handles of a network, made once per network runtime and shared by every flow. */
export function userOpNetworkOf(runtime: NetworkRuntime): UserOpNetwork {
  const known = byRuntime.get(runtime);
  if (known) return known;
  const entryPoint = runtime.config.contracts.entryPoint;
  const network: UserOpNetwork = {
    runtime,
    bundler: createBundler(runtime.config.bundlerUrl, entryPoint),
    paymasterSigner: runtime.config.paymasterSigner,
    entryPoint,
    factory: runtime.config.contracts.factory,
    paymaster: runtime.config.contracts.paymaster,
    relayer: runtime.config.contracts.relayer,
    caps: userOpCapsFor(presetOf(runtime.name).userOpCaps, runtime.config.userOpCaps),
  };
  byRuntime.set(runtime, network);
  return network;
}
