import type { Address } from "viem";
import { type LocalAccount, privateKeyToAccount } from "viem/accounts";
import type { NetworkRuntime } from "../chain/networks";
import { type Bundler, createBundler } from "../userops/bundler";
import { type UserOpCaps, userOpCapsFor } from "../userops/caps";

/** What a wallet flow needs per network besides the chain client: the bundler and the paymaster's signer. */
export type WalletNetwork = {
  runtime: NetworkRuntime;
  bundler: Bundler;
  paymasterSigner: LocalAccount;
  entryPoint: Address;
  paymaster: Address;
  relayer: Address;
  /** What the paymaster signs at most: the network's defaults overridden by `userOpCaps` of its config. */
  caps: UserOpCaps;
};

const byRuntime = new WeakMap<NetworkRuntime, WalletNetwork>();

/** The wallet handles of a network, made once per network runtime and shared by every flow. */
export function walletNetworkOf(runtime: NetworkRuntime): WalletNetwork {
  const known = byRuntime.get(runtime);
  if (known) return known;
  const entryPoint = runtime.config.contracts.entryPoint as Address;
  const network: WalletNetwork = {
    runtime,
    bundler: createBundler(runtime.config.bundlerUrl, entryPoint),
    paymasterSigner: privateKeyToAccount(runtime.config.paymasterSignerKey as `0x${string}`),
    entryPoint,
    paymaster: runtime.config.contracts.paymaster as Address,
    relayer: runtime.config.contracts.relayer as Address,
    caps: userOpCapsFor(runtime.name, runtime.config.userOpCaps),
  };
  byRuntime.set(runtime, network);
  return network;
}
