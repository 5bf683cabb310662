import type { Address } from "viem";
import { type LocalAccount, privateKeyToAccount } from "viem/accounts";
import type { NetworkRuntime } from "../chain/networks";
import { type Bundler, createBundler } from "../userops/bundler";

/** What a wallet flow needs per network besides the chain client: the bundler and the paymaster's signer. */
export type WalletNetwork = {
  runtime: NetworkRuntime;
  bundler: Bundler;
  paymasterSigner: LocalAccount;
  entryPoint: Address;
  paymaster: Address;
  relayer: Address;
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
  };
  byRuntime.set(runtime, network);
  return network;
}
